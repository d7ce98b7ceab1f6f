/* AlliumView's pointer and keyboard controllers (see allium-view.h for the controls).
 *
 * Controllers sit on the GL area. Coordinates from GTK are widget pixels; the camera
 * works in framebuffer pixels, so they are multiplied by the scale factor on the way in.
 * Flying is a tick callback that runs while a fly key is held, moving by speed x the
 * frame's time, so the speed is the same at any frame rate. What is under the pointer is
 * worked out at most once per frame, in an idle callback, not per motion event.
 */
#include "allium-config.h"

#include "allium-view-private.h"

#include "allium-entity-definitions.h"
#include "allium-format.h"
#include "allium-preferences.h"
#include "allium-prefab-browser.h"
#include "allium-texture-browser.h"

#include "al-plane.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

/* Degrees of turn per pixel of mouse motion at sensitivity 1. */
#define LOOK_DEGREES_PER_PIXEL 0.22
/* The wheel's step: zoom (2D) and fly speed (3D) change by this factor per notch. */
#define WHEEL_FACTOR 1.2
/* Orbit pivot distance when nothing is under the pointer. */
#define ORBIT_DEFAULT_DISTANCE 256.0

/* --- static helpers ------------------------------------------------------------------ */

static guint fly_key_of(guint keyval)
{
    switch (gdk_keyval_to_lower(keyval)) {
    case GDK_KEY_w:
        return FLY_FORWARD;
    case GDK_KEY_s:
        return FLY_BACK;
    case GDK_KEY_a:
        return FLY_LEFT;
    case GDK_KEY_d:
        return FLY_RIGHT;
    case GDK_KEY_e:
        return FLY_UP;
    case GDK_KEY_q:
        return FLY_DOWN;
    case GDK_KEY_Shift_L:
    case GDK_KEY_Shift_R:
        return FLY_FAST;
    default:
        return 0;
    }
}

static const char *nudge_direction_of(guint keyval)
{
    switch (keyval) {
    case GDK_KEY_Left:
        return "left";
    case GDK_KEY_Right:
        return "right";
    case GDK_KEY_Up:
        return "up";
    case GDK_KEY_Down:
        return "down";
    case GDK_KEY_Page_Up:
        return "raise";
    case GDK_KEY_Page_Down:
        return "lower";
    default:
        return NULL;
    }
}

double allium_view_look_step(void)
{
    return LOOK_DEGREES_PER_PIXEL *
           allium_preferences_get_mouse_sensitivity(allium_preferences_get_default());
}

double allium_view_pitch_sign(void)
{
    return allium_preferences_get_invert_y(allium_preferences_get_default()) ? -1.0 : 1.0;
}

/* Moves a 3D camera across the view by a drag of DX, DY framebuffer pixels: a pixel is a
 * unit at the default fly speed, more when flying faster. */
static void pan_3d(AlliumView *self, double dx, double dy)
{
    double k = allium_preferences_get_fly_speed(allium_preferences_get_default()) / 320.0;
    al_camera_fly(&self->camera, 0, -dx * k, dy * k);
}

static gboolean fly_tick_cb(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void) widget;
    AlliumView *self = data;
    gint64 now = gdk_frame_clock_get_frame_time(clock);
    double dt = self->fly_last_us ? (double) (now - self->fly_last_us) / 1e6 : 1.0 / 60.0;
    self->fly_last_us = now;
    /* A stalled frame (a compile on a single core, a dialog) must not throw the camera
     * across the map. */
    dt = CLAMP(dt, 0.0, 0.1);

    guint k = self->fly_keys;
    double forward = ((k & FLY_FORWARD) ? 1 : 0) - ((k & FLY_BACK) ? 1 : 0);
    double right = ((k & FLY_RIGHT) ? 1 : 0) - ((k & FLY_LEFT) ? 1 : 0);
    double up = ((k & FLY_UP) ? 1 : 0) - ((k & FLY_DOWN) ? 1 : 0);
    if (forward == 0 && right == 0 && up == 0) {
        if (!(k & ~FLY_FAST)) {
            self->fly_tick = 0;
            self->fly_last_us = 0;
            return G_SOURCE_REMOVE;
        }
        return G_SOURCE_CONTINUE;
    }
    double speed = allium_preferences_get_fly_speed(allium_preferences_get_default());
    if (k & FLY_FAST) speed *= 3;
    double d = speed * dt;
    al_camera_fly(&self->camera, forward * d, right * d, up * d);
    allium_view_queue_render(self);
    return G_SOURCE_CONTINUE;
}

static void format_coordinate(GString *text, const char *axis, double v)
{
    /* Whole units as integers, as map coordinates are written; else to a hundredth. */
    char number[ALLIUM_NUMBER_SIZE];
    g_string_append_printf(text, "%s %s", axis, allium_format_short(number, v, 2));
}

static const char *material_of(const AlliumSnapshot *snap, int brush, int face)
{
    const al_input *in = &snap->input.input;
    if (brush < 0 || brush >= in->brush_count || face < 0) return NULL;
    const al_brush_desc *b = &in->brushes[brush];
    if (face >= b->face_count) return NULL;
    int m = in->faces[b->first_face + face].material;
    return m >= 0 && m < in->material_count ? in->materials[m].name : NULL;
}

/* Where an agent of HULL touching the surface at P (normal N) would have its origin: the
 * box is moved out along N until it rests on the surface, plus a small gap. A fixed small
 * offset would call every box solid next to any wall, which tells the designer nothing;
 * resting on the surface answers "does this agent fit here". */
static void resting_origin(const al_hull_desc *hull, const double p[3], const double n[3],
                           double out[3])
{
    double nearest = 0; /* min over the box's corners of dot(n, corner) */
    for (int k = 0; k < 3; k++) nearest += n[k] > 0 ? n[k] * hull->mins[k] : n[k] * hull->maxs[k];
    double push = 0.125 - nearest;
    for (int k = 0; k < 3; k++) out[k] = p[k] + n[k] * push;
}

static void describe_3d(AlliumView *self, const AlliumSnapshot *snap, GString *text)
{
    al_pick pick;
    if (!allium_view_pick_at(self, self->pointer_x, self->pointer_y, &pick)) {
        g_string_append(text, _("Nothing under the pointer"));
        return;
    }
    if (pick.kind == AL_PICK_ENTITY) {
        const char *cls = allium_snapshot_entity_value(snap, pick.entity, "classname");
        g_string_append_printf(text, _("Entity %d (%s)"), pick.entity, cls ? cls : "?");
    } else {
        const char *material = material_of(snap, pick.brush, pick.face);
        g_string_append_printf(text, _("Brush %d, face %d (%s)"), pick.brush, pick.face,
                               material ? material : "?");
    }
    allium_view_emit_pointer_point(self, pick.point, -1);
    g_string_append(text, " · ");
    format_coordinate(text, "x", pick.point[0]);
    g_string_append_c(text, ' ');
    format_coordinate(text, "y", pick.point[1]);
    g_string_append_c(text, ' ');
    format_coordinate(text, "z", pick.point[2]);

    if (!snap->world) return;
    int hulls = al_world_hull_count(snap->world);
    for (int h = 0; h < hulls; h++) {
        const al_hull_desc *hull = al_world_hull(snap->world, h);
        double origin[3];
        resting_origin(hull, pick.point, pick.normal, origin);
        gboolean solid = al_world_point_solid(snap->world, h, origin);
        g_string_append_printf(text, h == 0 ? " · %s: %s" : ", %s: %s", hull->name,
                               solid ? _("solid") : _("empty"));
    }
}

static void describe_2d(AlliumView *self, GString *text)
{
    double scale = allium_view_scale(self);
    double p[3];
    al_camera_unproject(&self->camera, self->pointer_x * scale, self->pointer_y * scale, 0, p);
    double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
    int right, up, depth;
    al_view_axes(self->kind, &right, &up, &depth);
    allium_view_emit_pointer_point(self, p, depth);
    static const char *names[3] = {"x", "y", "z"};
    format_coordinate(text, names[right], al_snap(p[right], grid));
    g_string_append_c(text, ' ');
    format_coordinate(text, names[up], al_snap(p[up], grid));
    g_string_append_printf(text, _(" (grid %g)"), grid);
    /* A point entity under the pointer: its class, as the 3D view says it. */
    al_pick pick;
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    if (snap && allium_view_pick_at(self, self->pointer_x, self->pointer_y, &pick) &&
        pick.kind == AL_PICK_ENTITY) {
        const char *cls = allium_snapshot_entity_value(snap, pick.entity, "classname");
        g_string_append(text, " · ");
        g_string_append_printf(text, _("Entity %d (%s)"), pick.entity, cls ? cls : "?");
    }
}

static gboolean hover_cb(gpointer data)
{
    AlliumView *self = data;
    self->hover_source = 0;
    if (!self->pointer_inside) return G_SOURCE_REMOVE;
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    GString *text = g_string_new(NULL);
    if (self->kind == AL_VIEW_3D) {
        if (snap && snap->scene) describe_3d(self, snap, text);
    } else {
        describe_2d(self, text);
    }
    allium_view_emit_pointer_info(self, text->str);
    g_string_free(text, TRUE);
    return G_SOURCE_REMOVE;
}

static void schedule_hover(AlliumView *self)
{
    if (!self->hover_source)
        self->hover_source = g_idle_add_full(G_PRIORITY_LOW, hover_cb, self, NULL);
}

static GdkModifierType current_state(GtkGesture *gesture)
{
    return gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(gesture));
}

/* --- callbacks ----------------------------------------------------------------------- */

static gboolean key_pressed_cb(GtkEventControllerKey *controller, guint keyval, guint keycode,
                               GdkModifierType state, AlliumView *self)
{
    (void) controller;
    (void) keycode;
    return allium_view_handle_key(self, keyval, state, TRUE);
}

static void key_released_cb(GtkEventControllerKey *controller, guint keyval, guint keycode,
                            GdkModifierType state, AlliumView *self)
{
    (void) controller;
    (void) keycode;
    allium_view_handle_key(self, keyval, state, FALSE);
}

static void focus_leave_cb(GtkEventControllerFocus *controller, AlliumView *self)
{
    (void) controller;
    /* Key releases go to whoever has the focus now: forget what was held. */
    allium_view_release_keys(self);
}

static void click_pressed_cb(GtkGestureClick *gesture, int n_press, double x, double y,
                             AlliumView *self)
{
    (void) gesture;
    (void) n_press;
    (void) x;
    (void) y;
    gtk_widget_grab_focus(GTK_WIDGET(self->gl_area));
    allium_view_emit_activated(self);
}

static void click_released_cb(GtkGestureClick *gesture, int n_press, double x, double y,
                              AlliumView *self)
{
    /* GTK reports the release of a drag as a click too: a drag is not a click. A double
     * click enters the group the first click selected, then picks inside it. */
    if (self->primary_dragged) return;
    if (n_press == 2) gtk_widget_activate_action(GTK_WIDGET(self), "win.enter-group", NULL);
    allium_view_click(self, x, y, current_state(GTK_GESTURE(gesture)));
}

/* Where the ray through widget point (X, Y) enters and leaves input brush B (the
 * intersection of the ray's line with the brush's half-spaces); FALSE if it misses. */
static gboolean line_through_brush(const al_input *in, int b, const double origin[3],
                                   const double dir[3], double *enter, double *leave)
{
    double t0 = -INFINITY, t1 = INFINITY;
    const al_brush_desc *brush = &in->brushes[b];
    for (int f = 0; f < brush->face_count; f++) {
        const al_face_desc *face = &in->faces[brush->first_face + f];
        double n[3], dist;
        if (!al_plane_from_points(face->points[0], face->points[1], face->points[2], n, &dist))
            continue;
        double nd = n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2];
        double no = n[0] * origin[0] + n[1] * origin[1] + n[2] * origin[2];
        if (fabs(nd) < 1e-12) {
            if (no > dist) return FALSE; /* parallel, outside */
            continue;
        }
        double t = (dist - no) / nd;
        if (nd > 0)
            t1 = MIN(t1, t);
        else
            t0 = MAX(t0, t);
    }
    *enter = t0;
    *leave = t1;
    return t0 < t1;
}

typedef struct {
    int brush;
    double enter;
} DepthHit;

static int compare_hits(gconstpointer a, gconstpointer b)
{
    const DepthHit *x = a, *y = b;
    if (x->enter != y->enter) return x->enter < y->enter ? -1 : 1;
    return (x->brush > y->brush) - (x->brush < y->brush);
}

/* 2D: the brushes the pointer at widget point (X, Y) is over, along the view's depth,
 * nearest the camera first, hidden ones left out: input indices into HITS. */
static void brushes_under(AlliumView *self, const AlliumSnapshot *snap, double x, double y,
                          GArray *hits)
{
    double scale = allium_view_scale(self), origin[3], dir[3];
    al_camera_ray(&self->camera, x * scale, y * scale, origin, dir);
    int r, u, d;
    al_view_axes(self->kind, &r, &u, &d);
    const al_pick_mask *mask = allium_view_pick_mask(self, snap);
    const guint8 *hidden = mask->brushes;
    int hidden_count = mask->brush_count;
    g_autoptr(GArray) found = g_array_new(FALSE, FALSE, sizeof(DepthHit));
    const al_input *in = &snap->input.input;
    for (int b = 0; b < in->brush_count; b++) {
        double lo[3], hi[3], enter, leave;
        if (hidden && b < hidden_count && hidden[b]) continue;
        if (!al_scene_brush_bounds(snap->scene, b, lo, hi)) continue; /* not a valid brush */
        if (origin[r] < lo[r] || origin[r] > hi[r] || origin[u] < lo[u] || origin[u] > hi[u])
            continue;
        if (!line_through_brush(in, b, origin, dir, &enter, &leave)) continue;
        DepthHit hit = {b, enter};
        g_array_append_val(found, hit);
    }
    g_array_sort(found, compare_hits);
    for (guint i = 0; i < found->len; i++)
        g_array_append_val(hits, g_array_index(found, DepthHit, i).brush);
}

/* A plain click in a 2D view where the last one was, with one brush selected that is
 * under the pointer, selects the next brush under it, deeper along the view (after the
 * deepest: the nearest again), so that brushes behind others can be picked without a
 * rectangle. FALSE when that is not the case (the click then picks as usual). */
static gboolean cycle_pick(AlliumView *self, const AlliumSnapshot *snap, double x, double y)
{
    if (!self->has_last_click || fabs(x - self->last_click_x) > CYCLE_REACH ||
        fabs(y - self->last_click_y) > CYCLE_REACH || !snap->input.brush_ids)
        return FALSE;
    guint nb, ne;
    const gint64 *rows = allium_selection_get_brushes(self->selection, &nb);
    allium_selection_get_entities(self->selection, &ne);
    if (nb != 1 || ne != 0) return FALSE;
    int current = allium_snapshot_brush_index(snap, rows[0]);
    g_autoptr(GArray) hits = g_array_new(FALSE, FALSE, sizeof(int));
    brushes_under(self, snap, x, y, hits);
    for (guint i = 0; current >= 0 && hits->len > 1 && i < hits->len; i++)
        if (g_array_index(hits, int, i) == current) {
            int next = g_array_index(hits, int, (i + 1) % hits->len);
            allium_selection_select_brush(self->selection, snap->input.brush_ids[next],
                                          ALLIUM_SELECT_REPLACE);
            return TRUE;
        }
    return FALSE;
}

void allium_view_click(AlliumView *self, double x, double y, GdkModifierType state)
{
    /* A click of the entity tool places an entity rather than selecting (its drag does). */
    if (self->walker || self->tool == ALLIUM_TOOL_ENTITY || self->tool == ALLIUM_TOOL_TESTBOX)
        return;
    if (self->tool == ALLIUM_TOOL_CLIP) {
        if (!(state & GDK_ALT_MASK)) allium_view_clip_click(self, x, y);
        return;
    }
    if ((state & GDK_ALT_MASK) || !self->selection) return; /* Alt + left is orbit */
    /* The vertex tool: a click on a handle selects it rather than a brush. */
    if (self->tool == ALLIUM_TOOL_VERTEX && allium_view_vertex_click(self, x, y, state)) return;
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    if (!snap || !snap->scene) return;

    /* In 3D, Ctrl picks faces (Ctrl+Shift adds to them); Shift adds brushes and entities.
     * 2D views show no faces: there Ctrl adds, as Shift does. */
    gboolean faces = self->kind == AL_VIEW_3D && (state & GDK_CONTROL_MASK);
    AlliumSelectMode mode = (state & GDK_SHIFT_MASK) || (!faces && (state & GDK_CONTROL_MASK))
                                ? ALLIUM_SELECT_TOGGLE
                                : ALLIUM_SELECT_REPLACE;
    al_pick pick;
    gboolean picked = allium_view_pick_at(self, x, y, &pick);
    /* An agent under the pointer is watched instead (the selection stays): in 3D one in
     * front of what else is there, in 2D any (the views draw agents over the brushes). */
    if (self->collision) {
        double origin[3], dir[3], t;
        double scale = allium_view_scale(self);
        al_camera_ray(&self->camera, x * scale, y * scale, origin, dir);
        double max_t = picked && self->kind == AL_VIEW_3D ? pick.t : G_MAXDOUBLE;
        int agent = allium_collision_pick_agent(self->collision, origin, dir, max_t, &t);
        allium_collision_watch_agent(self->collision, agent);
        if (agent >= 0) return;
    }
    /* Clicking again where the last click was goes deeper (2D views). */
    gboolean again = self->kind != AL_VIEW_3D && mode == ALLIUM_SELECT_REPLACE &&
                     !(state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)) && cycle_pick(self, snap, x, y);
    self->has_last_click = TRUE;
    self->last_click_x = x;
    self->last_click_y = y;
    if (again) return;
    if (!picked) {
        if (mode == ALLIUM_SELECT_REPLACE) allium_selection_clear(self->selection);
        return;
    }
    if (faces && pick.kind == AL_PICK_FACE && snap->input.brush_ids)
        allium_selection_select_face(self->selection, snap->input.brush_ids[pick.brush],
                                     pick.face, mode);
    else if (pick.kind == AL_PICK_FACE && snap->input.brush_ids)
        allium_selection_select_brush(self->selection, snap->input.brush_ids[pick.brush], mode);
    else if (pick.kind == AL_PICK_ENTITY && snap->input.entity_ids)
        allium_selection_select_entity(self->selection, snap->input.entity_ids[pick.entity], mode);
}

static void secondary_begin_cb(GtkGestureDrag *gesture, double x, double y, AlliumView *self)
{
    (void) gesture;
    self->drag_x = self->drag_y = 0;
    self->secondary_moved = FALSE;
    self->secondary_x = x;
    self->secondary_y = y;
    gtk_widget_grab_focus(GTK_WIDGET(self->gl_area));
    allium_view_emit_activated(self);
}

/* The drag's movement since the last update, in the view's pixels; remembers OX, OY. */
static void take_drag_delta(AlliumView *self, double ox, double oy, double *dx, double *dy)
{
    double scale = allium_view_scale(self);
    *dx = (ox - self->drag_x) * scale;
    *dy = (oy - self->drag_y) * scale;
    self->drag_x = ox;
    self->drag_y = oy;
}

/* Right drag: look around (3D) or pan (2D). */
static void secondary_update_cb(GtkGestureDrag *gesture, double ox, double oy, AlliumView *self)
{
    (void) gesture;
    if (fabs(ox) >= CLICK_SLOP || fabs(oy) >= CLICK_SLOP) self->secondary_moved = TRUE;
    double dx, dy;
    take_drag_delta(self, ox, oy, &dx, &dy);
    if (self->walker) {
        allium_view_walk_look(self, dx, dy);
        return;
    }
    if (self->kind == AL_VIEW_3D) {
        double k = allium_view_look_step();
        al_camera_look(&self->camera, -dx * k, -dy * k * allium_view_pitch_sign());
    } else {
        al_camera_pan(&self->camera, dx, dy);
    }
    allium_view_queue_render(self);
}

/* A right press and release without moving is a click: the context menu. */
static void secondary_end_cb(GtkGestureDrag *gesture, double ox, double oy, AlliumView *self)
{
    (void) gesture;
    if (self->secondary_moved || fabs(ox) >= CLICK_SLOP || fabs(oy) >= CLICK_SLOP) return;
    allium_view_open_context_menu(self, self->secondary_x, self->secondary_y);
}

/* Middle drag: pan, in both kinds of view. */
static void middle_update_cb(GtkGestureDrag *gesture, double ox, double oy, AlliumView *self)
{
    (void) gesture;
    double dx, dy;
    take_drag_delta(self, ox, oy, &dx, &dy);
    if (self->kind == AL_VIEW_3D) pan_3d(self, dx, dy);
    else al_camera_pan(&self->camera, dx, dy);
    allium_view_queue_render(self);
}

static void primary_begin_cb(GtkGestureDrag *gesture, double x, double y, AlliumView *self)
{
    if (self->walker) {
        /* Walking does not edit. */
        gtk_gesture_set_state(GTK_GESTURE(gesture), GTK_EVENT_SEQUENCE_DENIED);
        return;
    }
    self->drag_x = self->drag_y = 0;
    self->primary_dragged = FALSE;
    GdkModifierType state = current_state(GTK_GESTURE(gesture));
    /* Ctrl + Alt in a 2D view is the rotation centre's drag, and Alt on a side handle the
     * shear: tools' drags. */
    self->orbiting = (state & GDK_ALT_MASK) &&
                     !(self->kind != AL_VIEW_3D &&
                       ((state & GDK_CONTROL_MASK) || allium_view_side_handle_at(self, x, y)));
    if (!self->orbiting) {
        /* A tool's drag, or nothing (a click selects on release). */
        allium_view_tool_begin(self, x, y, state);
        return;
    }
    if (self->kind != AL_VIEW_3D) return;

    /* The pivot: the selection's centre, else the point under the pointer, else a point
     * ahead. */
    double mins[3], maxs[3];
    al_pick pick;
    if (allium_view_selection_bounds(self, FALSE, mins, maxs)) {
        for (int k = 0; k < 3; k++) self->orbit_pivot[k] = 0.5 * (mins[k] + maxs[k]);
    } else if (allium_view_pick_at(self, x, y, &pick)) {
        memcpy(self->orbit_pivot, pick.point, sizeof self->orbit_pivot);
    } else {
        double f[3], r[3], u[3];
        al_camera_basis(&self->camera, f, r, u);
        for (int k = 0; k < 3; k++)
            self->orbit_pivot[k] = self->camera.position[k] + f[k] * ORBIT_DEFAULT_DISTANCE;
    }
}

/* Alt + left drag: orbit (3D) or pan (2D, for touchpads without a middle button); a plain
 * left drag: the tool's. */
static void primary_update_cb(GtkGestureDrag *gesture, double ox, double oy, AlliumView *self)
{
    if (fabs(ox) >= CLICK_SLOP || fabs(oy) >= CLICK_SLOP) self->primary_dragged = TRUE;
    self->drag_state = current_state(GTK_GESTURE(gesture));
    if (!self->orbiting) {
        double x0, y0;
        if (allium_view_tool_active(self) && gtk_gesture_drag_get_start_point(gesture, &x0, &y0))
            allium_view_tool_update(self, x0 + ox, y0 + oy);
        return;
    }
    double dx, dy;
    take_drag_delta(self, ox, oy, &dx, &dy);
    if (self->kind == AL_VIEW_3D) {
        double k = allium_view_look_step();
        al_camera_orbit(&self->camera, self->orbit_pivot, -dx * k, -dy * k * allium_view_pitch_sign());
    } else {
        al_camera_pan(&self->camera, dx, dy);
    }
    allium_view_queue_render(self);
}

static void primary_end_cb(GtkGestureDrag *gesture, double ox, double oy, AlliumView *self)
{
    double x0, y0;
    if (!self->orbiting && allium_view_tool_active(self) &&
        gtk_gesture_drag_get_start_point(gesture, &x0, &y0)) {
        /* A press and release without moving is a click (selection), not an edit. */
        if (!self->primary_dragged && !allium_view_tool_places_on_click(self))
            allium_view_tool_cancel(self);
        else allium_view_tool_end(self, x0 + ox, y0 + oy);
    }
    self->orbiting = FALSE;
}

static void primary_cancel_cb(GtkGesture *gesture, GdkEventSequence *sequence, AlliumView *self)
{
    (void) gesture;
    (void) sequence;
    allium_view_tool_cancel(self);
    self->orbiting = FALSE;
}

static gboolean scroll_cb(GtkEventControllerScroll *controller, double dx, double dy,
                          AlliumView *self)
{
    (void) controller;
    (void) dx;
    if (dy == 0) return FALSE;
    double factor = pow(WHEEL_FACTOR, -dy);
    if (self->kind == AL_VIEW_3D) {
        AlliumPreferences *prefs = allium_preferences_get_default();
        allium_preferences_set_fly_speed(prefs, allium_preferences_get_fly_speed(prefs) * factor);
        g_autofree char *text = g_strdup_printf(_("Fly speed %.0f units/s"),
                                                allium_preferences_get_fly_speed(prefs));
        allium_view_show_info(self, text);
    } else {
        double scale = allium_view_scale(self);
        al_camera_zoom_at(&self->camera, factor, self->pointer_x * scale, self->pointer_y * scale);
        allium_view_queue_render(self);
        schedule_hover(self);
    }
    return TRUE;
}

static void motion_cb(GtkEventControllerMotion *controller, double x, double y, AlliumView *self)
{
    (void) controller;
    if (self->walker) {
        /* Walking: the pointer turns the eye (the cursor is hidden). */
        double scale = allium_view_scale(self);
        if (self->walk_look_primed)
            allium_view_walk_look(self, (x - self->pointer_x) * scale, (y - self->pointer_y) * scale);
        self->walk_look_primed = TRUE;
    }
    self->pointer_x = x;
    self->pointer_y = y;
    self->pointer_inside = TRUE;
    schedule_hover(self);
}

static void enter_cb(GtkEventControllerMotion *controller, double x, double y, AlliumView *self)
{
    motion_cb(controller, x, y, self);
    allium_view_emit_activated(self);
}

static void leave_cb(GtkEventControllerMotion *controller, AlliumView *self)
{
    (void) controller;
    self->pointer_inside = FALSE;
    allium_view_emit_pointer_info(self, "");
}

static GtkGesture *add_drag(AlliumView *self, guint button, GCallback begin, GCallback update,
                            GCallback end)
{
    GtkGesture *drag = gtk_gesture_drag_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(drag), button);
    if (begin) g_signal_connect(drag, "drag-begin", begin, self);
    if (update) g_signal_connect(drag, "drag-update", update, self);
    if (end) g_signal_connect(drag, "drag-end", end, self);
    gtk_widget_add_controller(GTK_WIDGET(self->gl_area), GTK_EVENT_CONTROLLER(drag));
    return drag;
}

/* A class name dropped from the entity browser: a point entity placed where it fell. */
static gboolean class_drop_cb(GtkDropTarget *target, const GValue *value, double x, double y,
                              AlliumView *self)
{
    (void) target;
    const char *name = G_VALUE_HOLDS_STRING(value) ? g_value_get_string(value) : NULL;
    if (!name || !self->document) return FALSE;
    g_autoptr(AlliumDefinitionSet) set = allium_document_dup_definitions(self->document);
    const al_entdef_class *cls = al_entdefs_find(&set->defs, name);
    if (!cls || cls->kind != AL_ENTDEF_POINT) return FALSE;
    return allium_view_place_entity(self, name, x, y);
}

/* A texture dropped from the texture browser: it goes to the face or brush it fell on. */
static gboolean material_drop_cb(GtkDropTarget *target, const GValue *value, double x, double y,
                                 AlliumView *self)
{
    (void) target;
    const char *name =
        G_VALUE_HOLDS(value, ALLIUM_TYPE_MATERIAL_NAME) ? g_value_get_boxed(value) : NULL;
    return name && allium_view_apply_material(self, name, x, y);
}

/* A prefab dropped from the Prefabs page: inserted with the centre of its bounds where it
 * fell (in a 2D view; the window's insert at the pointer, one undoable step). */
static gboolean prefab_drop_cb(GtkDropTarget *target, const GValue *value, double x, double y,
                               AlliumView *self)
{
    (void) target;
    const char *path =
        G_VALUE_HOLDS(value, ALLIUM_TYPE_PREFAB_PATH) ? g_value_get_boxed(value) : NULL;
    if (!path || !self->document) return FALSE;
    /* The drop is where the pointer is now: the insert reads it from there. */
    enter_cb(NULL, x, y, self);
    gtk_widget_activate_action(GTK_WIDGET(self), "win.insert-prefab-file", "s", path);
    return TRUE;
}

/* --- internal API -------------------------------------------------------------------- */

void allium_view_add_controllers(AlliumView *self)
{
    GtkWidget *area = GTK_WIDGET(self->gl_area);

    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(key_pressed_cb), self);
    g_signal_connect(keys, "key-released", G_CALLBACK(key_released_cb), self);
    gtk_widget_add_controller(area, keys);

    GtkEventController *focus = gtk_event_controller_focus_new();
    g_signal_connect(focus, "leave", G_CALLBACK(focus_leave_cb), self);
    gtk_widget_add_controller(area, focus);

    GtkGesture *click = gtk_gesture_click_new();
    gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(click), GDK_BUTTON_PRIMARY);
    g_signal_connect(click, "pressed", G_CALLBACK(click_pressed_cb), self);
    g_signal_connect(click, "released", G_CALLBACK(click_released_cb), self);
    gtk_widget_add_controller(area, GTK_EVENT_CONTROLLER(click));

    self->secondary_drag = add_drag(self, GDK_BUTTON_SECONDARY, G_CALLBACK(secondary_begin_cb),
                                    G_CALLBACK(secondary_update_cb), G_CALLBACK(secondary_end_cb));
    add_drag(self, GDK_BUTTON_MIDDLE, G_CALLBACK(secondary_begin_cb), G_CALLBACK(middle_update_cb),
             NULL);
    GtkGesture *primary = add_drag(self, GDK_BUTTON_PRIMARY, G_CALLBACK(primary_begin_cb),
                                   G_CALLBACK(primary_update_cb), G_CALLBACK(primary_end_cb));
    g_signal_connect(primary, "cancel", G_CALLBACK(primary_cancel_cb), self);

    GtkEventController *scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
    g_signal_connect(scroll, "scroll", G_CALLBACK(scroll_cb), self);
    gtk_widget_add_controller(area, scroll);

    GtkEventController *motion = gtk_event_controller_motion_new();
    g_signal_connect(motion, "motion", G_CALLBACK(motion_cb), self);
    g_signal_connect(motion, "enter", G_CALLBACK(enter_cb), self);
    g_signal_connect(motion, "leave", G_CALLBACK(leave_cb), self);
    gtk_widget_add_controller(area, motion);

    GtkDropTarget *drop = gtk_drop_target_new(G_TYPE_STRING, GDK_ACTION_COPY);
    g_signal_connect(drop, "drop", G_CALLBACK(class_drop_cb), self);
    gtk_widget_add_controller(area, GTK_EVENT_CONTROLLER(drop));
    drop = gtk_drop_target_new(ALLIUM_TYPE_MATERIAL_NAME, GDK_ACTION_COPY);
    g_signal_connect(drop, "drop", G_CALLBACK(material_drop_cb), self);
    gtk_widget_add_controller(area, GTK_EVENT_CONTROLLER(drop));
    drop = gtk_drop_target_new(ALLIUM_TYPE_PREFAB_PATH, GDK_ACTION_COPY);
    g_signal_connect(drop, "drop", G_CALLBACK(prefab_drop_cb), self);
    gtk_widget_add_controller(area, GTK_EVENT_CONTROLLER(drop));
    self->prefab_drop = drop;
}

void allium_view_stop_flying(AlliumView *self)
{
    self->fly_keys = 0;
    if (self->fly_tick) {
        gtk_widget_remove_tick_callback(GTK_WIDGET(self->gl_area), self->fly_tick);
        self->fly_tick = 0;
    }
    self->fly_last_us = 0;
}

gboolean allium_view_handle_key(AlliumView *self, guint keyval, GdkModifierType state,
                                gboolean pressed)
{
    if (allium_view_walk_key(self, keyval, pressed)) return TRUE;
    if (!pressed) {
        self->fly_keys &= ~fly_key_of(keyval);
        return FALSE;
    }
    if (allium_view_clip_key(self, keyval)) return TRUE;
    if (keyval == GDK_KEY_Escape && allium_view_tool_active(self)) {
        allium_view_tool_cancel(self); /* the drag is dropped; nothing is edited */
        return TRUE;
    }
    /* The arrow and page keys nudge the selection (the window's action, in this view's
     * axes); GtkWindow would take them for moving the focus. */
    const char *nudge = nudge_direction_of(keyval);
    /* Alt with them shifts (arrows, Shift: eight texels) or turns (pages) the selected
     * faces' textures (win.nudge-texture). */
    if (nudge && (state & GDK_ALT_MASK) && !(state & (GDK_CONTROL_MASK | GDK_SUPER_MASK))) {
        const char *turn = keyval == GDK_KEY_Page_Up     ? "ccw"
                           : keyval == GDK_KEY_Page_Down ? "cw"
                                                         : NULL;
        g_autofree char *param =
            turn ? g_strdup(turn)
                 : g_strdup_printf("%s:%d", nudge, (state & GDK_SHIFT_MASK) ? 8 : 1);
        allium_view_emit_activated(self);
        gtk_widget_activate_action(GTK_WIDGET(self), "win.nudge-texture", "s", param);
        return TRUE;
    }
    if (nudge && !(state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK | GDK_SHIFT_MASK))) {
        allium_view_emit_activated(self);
        gtk_widget_activate_action(GTK_WIDGET(self), "win.nudge", "s", nudge);
        return TRUE;
    }
    if (self->kind != AL_VIEW_3D) return FALSE;
    if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SUPER_MASK)) return FALSE;
    guint key = fly_key_of(keyval);
    if (!key) return FALSE;
    self->fly_keys |= key;
    if (key == FLY_FAST) return FALSE; /* Shift alone is also a modifier for others */
    if (!self->fly_tick) {
        self->fly_last_us = 0;
        self->fly_tick = gtk_widget_add_tick_callback(GTK_WIDGET(self->gl_area), fly_tick_cb, self, NULL);
    }
    return TRUE;
}

gboolean allium_view_pick_at(AlliumView *self, double x, double y, al_pick *pick)
{
    AlliumSnapshot *snap = allium_view_get_snapshot(self);
    pick->kind = AL_PICK_NONE;
    if (!snap || !snap->scene) return FALSE;
    double scale = allium_view_scale(self);
    double origin[3], dir[3];
    al_camera_ray(&self->camera, x * scale, y * scale, origin, dir);
    unsigned flags = 0;
    if (!(self->overlays & AL_OVERLAY_TOOLS)) flags |= AL_PICK_SKIP_TOOLS;
    if (!(self->overlays & AL_OVERLAY_ENTITIES)) flags |= AL_PICK_SKIP_ENTITIES;
    return al_scene_pick_visible(snap->scene, origin, dir, flags, allium_view_pick_mask(self, snap),
                                 pick);
}

/* --- public API ---------------------------------------------------------------------- */

gboolean allium_view_offer_key(AlliumView *self, guint keyval, GdkModifierType state,
                               gboolean pressed)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), FALSE);
    if (self->walker) return allium_view_handle_key(self, keyval, state, pressed);
    guint key = fly_key_of(keyval);
    if (self->kind != AL_VIEW_3D || !key) return FALSE;
    if (!pressed) {
        gboolean held = (self->fly_keys & key) != 0;
        allium_view_handle_key(self, keyval, state, FALSE);
        return held;
    }
    if (!self->pointer_inside || !gtk_widget_get_mapped(GTK_WIDGET(self))) return FALSE;
    return allium_view_handle_key(self, keyval, state, TRUE);
}

void allium_view_release_keys(AlliumView *self)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    allium_view_stop_flying(self);
    if (self->walker) allium_walker_set_keys(self->walker, 0);
}

void allium_view_simulate_pointer(AlliumView *self, gboolean inside, double x, double y)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    if (inside)
        enter_cb(NULL, x, y, self);
    else
        leave_cb(NULL, self);
}

gboolean allium_view_get_pointer_point(AlliumView *self, double point[3], gboolean axes[3])
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), FALSE);
    if (self->kind == AL_VIEW_3D || !self->pointer_inside) return FALSE;
    double scale = allium_view_scale(self);
    al_camera_unproject(&self->camera, self->pointer_x * scale, self->pointer_y * scale, 0, point);
    int right, up, depth;
    al_view_axes(self->kind, &right, &up, &depth);
    for (int k = 0; k < 3; k++) axes[k] = k != depth;
    return TRUE;
}
