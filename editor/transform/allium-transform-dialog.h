/* The "Rotate", "Scale" and "Shear" dialogs: a turn by a typed angle about an axis, or a scale by
 * three typed factors, of the selection about the middle of its bounds; a turn may be
 * about a typed point instead (the rotation centre placed in a 2D view, to begin with); a
 * shear moves the far side of the selection across one axis along another by a typed
 * distance, its near side kept. Apply hands the
 * values to the window, which makes them one undoable step (allium_document_transform);
 * a refusal (a factor of 0, a selection pushed beyond the map's limits) keeps the dialog
 * open with the reason. Main thread. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum {
    ALLIUM_TRANSFORM_ROTATE, /* VALUES[0]: degrees, counter-clockwise about +AXIS */
    ALLIUM_TRANSFORM_SCALE,  /* VALUES: the factors along X, Y and Z */
    ALLIUM_TRANSFORM_SHEAR,  /* VALUES[0]: how far the selection's far side across axis
                                VALUES[1] (0 X, 1 Y, 2 Z) moves along AXIS, its near side
                                kept */
} AlliumTransformKind;

/* Applies the values about CENTRE (NULL: the middle of the selection); returns FALSE with a
 * message (g_free'd by the dialog) to refuse. */
typedef gboolean (*AlliumTransformFunc)(AlliumTransformKind kind, const double values[3], int axis,
                                        const double *centre, char **message, gpointer user_data);

/* Shows the dialog of KIND over PARENT, the axis set to AXIS (0 X, 1 Y, 2 Z); it destroys
 * itself when closed. A rotation offers "About a point" with POINT's coordinates, chosen
 * when USE_POINT. */
GtkWindow *allium_transform_dialog_show(GtkWindow *parent, AlliumTransformKind kind, int axis,
                                        const double point[3], gboolean use_point,
                                        AlliumTransformFunc func, gpointer user_data);

/* For tests, as a designer would do it: type VALUES and choose AXIS, press Apply (TRUE when
 * the values were applied and the dialog closed), read the refusal shown ("" when none)
 * and the axis chosen. */
void allium_transform_dialog_set(GtkWindow *dialog, const double values[3], int axis);
gboolean allium_transform_dialog_apply(GtkWindow *dialog);
const char *allium_transform_dialog_get_message(GtkWindow *dialog);
int allium_transform_dialog_get_axis(GtkWindow *dialog);
/* For tests: type POINT as the rotation's centre (NULL: about the middle again); choose the
 * shear's side (the axis across). */
void allium_transform_dialog_set_across(GtkWindow *dialog, int axis);
void allium_transform_dialog_set_centre(GtkWindow *dialog, const double *point);

G_END_DECLS
