/* AlliumAngleDial: a small dial that shows and sets a direction in the map's ground plane,
 * beside the inspector's number fields of "angle" and the yaw of "mangle" and "angles".
 *
 * Quake's yaw: 0 points east (+X), 90 north (+Y), counter-clockwise seen from above, as
 * the top view shows the map; the dial is drawn the same way, so the needle points where
 * the entity faces in the top view. Dragging (or clicking) sets the angle the pointer
 * points at, in 15-degree steps, or to the whole degree with Shift held; "angle-set" is
 * emitted once when the button is released, so a drag is one edit. The values -1 and -2,
 * Quake's "up" and "down" of an "angle" key, are drawn as an arrow up or down instead of a
 * needle.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_ANGLE_DIAL (allium_angle_dial_get_type())
G_DECLARE_FINAL_TYPE(AlliumAngleDial, allium_angle_dial, ALLIUM, ANGLE_DIAL, GtkDrawingArea)

/* The dial's step without Shift, in degrees. */
#define ALLIUM_ANGLE_DIAL_STEP 15

GtkWidget *allium_angle_dial_new(double angle);

/* The angle shown (degrees; -1 up, -2 down); setting it emits nothing. */
double allium_angle_dial_get_angle(AlliumAngleDial *self);
void allium_angle_dial_set_angle(AlliumAngleDial *self, double angle);

/* The angle a pointer at (X, Y) in a dial of WIDTH x HEIGHT pixels points at: 0 <= angle
 * < 360, whole degrees, in ALLIUM_ANGLE_DIAL_STEP steps unless FREE. The centre itself
 * gives 0. */
double allium_angle_dial_angle_at(int width, int height, double x, double y, gboolean free);

/* What the dial's drag does, one pointer position at a time (the gesture's handlers and
 * the self-test call it): the pointer at (X, Y) with modifier STATE; RELEASE ends the drag
 * and emits "angle-set". */
void allium_angle_dial_drag_to(AlliumAngleDial *self, double x, double y, GdkModifierType state,
                               gboolean release);

G_END_DECLS
