/* The inspector's angle dial (see allium-angle-dial.h). One widget per angle row; drawn
 * with cairo from the widget's own colour, so it follows the theme. */
#include "allium-angle-dial.h"

#include <math.h>

struct _AlliumAngleDial {
    GtkDrawingArea parent_instance;

    double angle;         /* degrees; -1 up, -2 down */
    double drag_start[2]; /* where the drag began, in the widget's pixels */
};

G_DEFINE_FINAL_TYPE(AlliumAngleDial, allium_angle_dial, GTK_TYPE_DRAWING_AREA)

enum { SIGNAL_ANGLE_SET, N_SIGNALS };
static guint signals[N_SIGNALS];

/* Draws an arrow head at (X, Y) pointing along (DX, DY) (a unit vector), SIZE long. */
static void draw_head(cairo_t *cr, double x, double y, double dx, double dy, double size)
{
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x - size * dx - 0.6 * size * dy, y - size * dy + 0.6 * size * dx);
    cairo_line_to(cr, x - size * dx + 0.6 * size * dy, y - size * dy - 0.6 * size * dx);
    cairo_close_path(cr);
    cairo_fill(cr);
}

static void draw_cb(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
    (void) data;
    AlliumAngleDial *self = ALLIUM_ANGLE_DIAL(area);
    GdkRGBA fg;
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    gtk_style_context_get_color(gtk_widget_get_style_context(GTK_WIDGET(area)), &fg);
    G_GNUC_END_IGNORE_DEPRECATIONS
    double cx = width / 2.0, cy = height / 2.0, r = MIN(width, height) / 2.0 - 2;
    if (r < 4) return;
    cairo_set_line_width(cr, 1);
    /* The rim, and ticks every 45 degrees (longer at the four compass points). */
    cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, fg.alpha * 0.5);
    cairo_arc(cr, cx, cy, r, 0, 2 * G_PI);
    cairo_stroke(cr);
    for (int i = 0; i < 8; i++) {
        double a = i * G_PI / 4, inner = r * (i % 2 ? 0.82 : 0.7);
        cairo_move_to(cr, cx + inner * cos(a), cy - inner * sin(a));
        cairo_line_to(cr, cx + r * cos(a), cy - r * sin(a));
    }
    cairo_stroke(cr);
    cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, fg.alpha);
    cairo_set_line_width(cr, 2);
    if (self->angle == -1 || self->angle == -2) {
        /* Up or down: a vertical arrow through the centre, no needle. */
        double dir = self->angle == -1 ? -1 : 1;
        cairo_move_to(cr, cx, cy - dir * r * 0.55);
        cairo_line_to(cr, cx, cy + dir * r * 0.3);
        cairo_stroke(cr);
        draw_head(cr, cx, cy + dir * r * 0.75, 0, dir, r * 0.45);
        return;
    }
    double a = self->angle * G_PI / 180, dx = cos(a), dy = -sin(a);
    cairo_move_to(cr, cx, cy);
    cairo_line_to(cr, cx + dx * r * 0.7, cy + dy * r * 0.7);
    cairo_stroke(cr);
    draw_head(cr, cx + dx * r, cy + dy * r, dx, dy, r * 0.35);
    cairo_arc(cr, cx, cy, 2, 0, 2 * G_PI);
    cairo_fill(cr);
}

static void drag_begin_cb(GtkGestureDrag *gesture, double x, double y, AlliumAngleDial *self)
{
    self->drag_start[0] = x;
    self->drag_start[1] = y;
    GdkModifierType state =
        gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(gesture));
    allium_angle_dial_drag_to(self, x, y, state, FALSE);
}

static void drag_update_cb(GtkGestureDrag *gesture, double dx, double dy, AlliumAngleDial *self)
{
    GdkModifierType state =
        gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(gesture));
    allium_angle_dial_drag_to(self, self->drag_start[0] + dx, self->drag_start[1] + dy, state,
                              FALSE);
}

static void drag_end_cb(GtkGestureDrag *gesture, double dx, double dy, AlliumAngleDial *self)
{
    GdkModifierType state =
        gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(gesture));
    allium_angle_dial_drag_to(self, self->drag_start[0] + dx, self->drag_start[1] + dy, state,
                              TRUE);
}

static void allium_angle_dial_class_init(AlliumAngleDialClass *klass)
{
    /* angle-set(angle): the designer chose ANGLE (degrees) by dragging or clicking. */
    signals[SIGNAL_ANGLE_SET] =
        g_signal_new("angle-set", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                     G_TYPE_NONE, 1, G_TYPE_DOUBLE);
    gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "allium-angle-dial");
}

static void allium_angle_dial_init(AlliumAngleDial *self)
{
    gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(self), 30);
    gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(self), 30);
    gtk_widget_set_valign(GTK_WIDGET(self), GTK_ALIGN_CENTER);
    gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self), draw_cb, NULL, NULL);
    gtk_widget_set_cursor_from_name(GTK_WIDGET(self), "pointer");
    GtkGesture *drag = gtk_gesture_drag_new();
    g_signal_connect(drag, "drag-begin", G_CALLBACK(drag_begin_cb), self);
    g_signal_connect(drag, "drag-update", G_CALLBACK(drag_update_cb), self);
    g_signal_connect(drag, "drag-end", G_CALLBACK(drag_end_cb), self);
    gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drag));
}

GtkWidget *allium_angle_dial_new(double angle)
{
    AlliumAngleDial *self = g_object_new(ALLIUM_TYPE_ANGLE_DIAL, NULL);
    self->angle = angle;
    return GTK_WIDGET(self);
}

double allium_angle_dial_get_angle(AlliumAngleDial *self)
{
    g_return_val_if_fail(ALLIUM_IS_ANGLE_DIAL(self), 0);
    return self->angle;
}

void allium_angle_dial_set_angle(AlliumAngleDial *self, double angle)
{
    g_return_if_fail(ALLIUM_IS_ANGLE_DIAL(self));
    if (self->angle == angle) return;
    self->angle = angle;
    gtk_widget_queue_draw(GTK_WIDGET(self));
}

double allium_angle_dial_angle_at(int width, int height, double x, double y, gboolean free)
{
    double dx = x - width / 2.0, dy = height / 2.0 - y; /* screen y points down */
    if (dx == 0 && dy == 0) return 0;
    double a = atan2(dy, dx) * 180 / G_PI;
    double step = free ? 1 : ALLIUM_ANGLE_DIAL_STEP;
    a = round(a / step) * step;
    a = fmod(a, 360);
    if (a < 0) a += 360;
    return a == 360 ? 0 : a + 0.0; /* + 0.0: no "-0" */
}

void allium_angle_dial_drag_to(AlliumAngleDial *self, double x, double y, GdkModifierType state,
                               gboolean release)
{
    g_return_if_fail(ALLIUM_IS_ANGLE_DIAL(self));
    GtkWidget *w = GTK_WIDGET(self);
    allium_angle_dial_set_angle(self, allium_angle_dial_angle_at(gtk_widget_get_width(w),
                                                                 gtk_widget_get_height(w), x, y,
                                                                 (state & GDK_SHIFT_MASK) != 0));
    if (release) g_signal_emit(self, signals[SIGNAL_ANGLE_SET], 0, self->angle);
}
