/* AlliumSelection: what the designer has selected in one window, as document row ids.
 *
 * Row ids (not input indices) so that a selection survives recompiles, undo and redo;
 * views map them to the current snapshot's input indices when they draw. Brushes and
 * point entities are kept apart, in the order they were selected.
 *
 * Signal "changed": the selection changed.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_SELECTION (allium_selection_get_type())
G_DECLARE_FINAL_TYPE(AlliumSelection, allium_selection, ALLIUM, SELECTION, GObject)

typedef enum {
    ALLIUM_SELECT_REPLACE, /* the item alone */
    ALLIUM_SELECT_TOGGLE,  /* add it, or remove it if it was selected */
} AlliumSelectMode;

AlliumSelection *allium_selection_new(void);

void allium_selection_clear(AlliumSelection *self);
void allium_selection_select_brush(AlliumSelection *self, gint64 brush, AlliumSelectMode mode);
void allium_selection_select_entity(AlliumSelection *self, gint64 entity, AlliumSelectMode mode);

gboolean allium_selection_has_brush(AlliumSelection *self, gint64 brush);
gboolean allium_selection_is_empty(AlliumSelection *self);

/* The selected rows; *COUNT receives their number. Valid until the next change. */
const gint64 *allium_selection_get_brushes(AlliumSelection *self, guint *count);
const gint64 *allium_selection_get_entities(AlliumSelection *self, guint *count);

/* Bumped by every change, so that views can tell whether their cached indices are stale. */
guint64 allium_selection_get_serial(AlliumSelection *self);

G_END_DECLS
