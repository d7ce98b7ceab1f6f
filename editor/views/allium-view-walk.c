/* AlliumView's walk mode: the 3D view's camera becomes the eye of an agent the designer
 * steers (AlliumWalker).
 *
 * While walking, the view's key controller hands every key to walk_key (W, A, S, D move,
 * Space jumps, Ctrl or C crouches, the arrow keys turn, Escape leaves), so none of the
 * editing shortcuts fire; the pointer's motion over the view turns the eye (the cursor is
 * hidden), and so does a right drag. A tick callback on the GL area lets the frame's time
 * pass on the walker, which runs its fixed 60 Hz steps on the document's newest snapshot,
 * then puts the camera at the walker's eye and the overlay's text under it.
 *
 * GTK 4 cannot warp or confine the pointer, so turning by motion stops where the pointer
 * leaves the view; the arrow keys and the right drag turn without that limit.
 */
#include "allium-config.h"

#include "allium-view-private.h"


#include <gio/gio.h>
#include <glib/gi18n.h>

/* Degrees one press (or auto-repeat) of an arrow key turns. */
#define TURN_DEGREES 5.0

/* --- static helpers ------------------------------------------------------------------ */

static AlliumWalkKeys walk_key_of(guint keyval)
{
    switch (gdk_keyval_to_lower(keyval)) {
    case GDK_KEY_w:
        return ALLIUM_WALK_FORWARD;
    case GDK_KEY_s:
        return ALLIUM_WALK_BACK;
    case GDK_KEY_a:
        return ALLIUM_WALK_LEFT;
    case GDK_KEY_d:
        return ALLIUM_WALK_RIGHT;
    case GDK_KEY_space:
        return ALLIUM_WALK_JUMP;
    case GDK_KEY_c:
    case GDK_KEY_Control_L:
    case GDK_KEY_Control_R:
        return ALLIUM_WALK_CROUCH;
    default:
        return 0;
    }
}


/* The camera at the walker's eye, and the overlay's text. */
static void follow_walker(AlliumView *self)
{
    allium_walker_get_eye(self->walker, self->camera.position, &self->camera.yaw,
                          &self->camera.pitch);
    g_autofree char *state = allium_walker_describe(self->walker);
    /* TRANSLATORS: walk mode's overlay; %s is the agent's state */
    g_autofree char *text = g_strdup_printf(_("Walking: %s — Esc returns to editing"), state);
    if (g_strcmp0(gtk_label_get_text(self->walk_label), text) != 0)
        gtk_label_set_text(self->walk_label, text);
    allium_view_queue_render(self);
}

static gboolean walk_tick_cb(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    (void) widget;
    AlliumView *self = data;
    gint64 now = gdk_frame_clock_get_frame_time(clock);
    double dt = self->walk_last_us ? (double) (now - self->walk_last_us) / 1e6 : 0.0;
    self->walk_last_us = now;
    if (self->document) allium_walker_set_snapshot(self->walker, allium_document_get_snapshot(self->document));
    allium_walker_advance(self->walker, dt);
    follow_walker(self);
    return G_SOURCE_CONTINUE;
}

/* --- internal API (allium-view-private.h) -------------------------------------------- */

gboolean allium_view_walk_key(AlliumView *self, guint keyval, gboolean pressed)
{
    if (!self->walker) return FALSE;
    if (pressed && keyval == GDK_KEY_Escape) {
        allium_view_stop_walking(self);
        return TRUE;
    }
    AlliumWalkKeys key = walk_key_of(keyval);
    AlliumWalkKeys held = allium_walker_get_keys(self->walker);
    allium_walker_set_keys(self->walker, pressed ? held | key : held & ~key);
    if (pressed && (keyval == GDK_KEY_Left || keyval == GDK_KEY_Right)) {
        allium_walker_look(self->walker, keyval == GDK_KEY_Left ? TURN_DEGREES : -TURN_DEGREES, 0);
        follow_walker(self);
    } else if (pressed && (keyval == GDK_KEY_Up || keyval == GDK_KEY_Down)) {
        allium_walker_look(self->walker, 0, keyval == GDK_KEY_Up ? TURN_DEGREES : -TURN_DEGREES);
        follow_walker(self);
    }
    /* Every key belongs to walking: the editing shortcuts stay quiet. */
    return TRUE;
}

void allium_view_walk_look(AlliumView *self, double dx, double dy)
{
    if (!self->walker) return;
    double k = allium_view_look_step();
    allium_walker_look(self->walker, -dx * k, -dy * k * allium_view_pitch_sign());
    follow_walker(self);
}

/* --- public API ---------------------------------------------------------------------- */

gboolean allium_view_start_walking(AlliumView *self, gboolean from_camera, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), FALSE);
    if (self->kind != AL_VIEW_3D) {
        g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                            _("Walk mode needs a 3D view"));
        return FALSE;
    }
    AlliumSnapshot *snap = self->document ? allium_document_get_snapshot(self->document) : NULL;
    AlliumWalker *walker = allium_walker_new(snap, from_camera, self->camera.position,
                                             self->camera.yaw, self->camera.pitch, error);
    if (!walker) return FALSE;
    allium_view_stop_walking(self);
    allium_view_stop_flying(self);
    allium_view_tool_cancel(self);
    self->walker = walker;
    self->walk_last_us = 0;
    self->walk_look_primed = FALSE;
    self->walk_tick = gtk_widget_add_tick_callback(GTK_WIDGET(self->gl_area), walk_tick_cb, self, NULL);
    gtk_widget_set_cursor_from_name(GTK_WIDGET(self->gl_area), "none");
    gtk_widget_set_visible(GTK_WIDGET(self->walk_label), TRUE);
    gtk_widget_grab_focus(GTK_WIDGET(self->gl_area));
    follow_walker(self);
    g_object_notify(G_OBJECT(self), "walking");
    return TRUE;
}

void allium_view_stop_walking(AlliumView *self)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    if (!self->walker) return;
    if (self->walk_tick) gtk_widget_remove_tick_callback(GTK_WIDGET(self->gl_area), self->walk_tick);
    self->walk_tick = 0;
    /* The camera stays where the walk ended, so the designer edits from there. */
    g_clear_pointer(&self->walker, allium_walker_free);
    gtk_widget_set_cursor(GTK_WIDGET(self->gl_area), NULL);
    gtk_widget_set_visible(GTK_WIDGET(self->walk_label), FALSE);
    allium_view_queue_render(self);
    g_object_notify(G_OBJECT(self), "walking");
}

gboolean allium_view_is_walking(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), FALSE);
    return self->walker != NULL;
}

AlliumWalker *allium_view_get_walker(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), NULL);
    return self->walker;
}

void allium_view_simulate_key(AlliumView *self, guint keyval, gboolean pressed)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    allium_view_handle_key(self, keyval, 0, pressed);
}
