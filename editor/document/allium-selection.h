/* AlliumSelection: what the designer has selected in one window, as document row ids,
 * the brushes hidden from its views (drawn nowhere and picked nowhere, yet compiled) and
 * those locked (drawn, never picked), as the document's marks and layers say (the window
 * hands them over: allium-window-hide.c), and the guides the current tool draws (a box being drawn,
 * brushes being moved), which every view of the window shows.
 *
 * Row ids (not input indices) so that a selection survives recompiles, undo and redo;
 * views map them to the current snapshot's input indices when they draw. Brushes and
 * point entities are kept apart, in the order they were selected.
 *
 * Signals: "changed": the selection (or what is hidden) changed; "guides-changed": the
 * guides changed.
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

/* A face: its brush's row and its index among the brush's faces (the document's order,
 * which is the compiler input's). */
typedef struct {
    gint64 brush;
    int face;
} AlliumFaceRef;

/* Selects one face (REPLACE: only it; TOGGLE: adds or removes it). A selection holds
 * either faces or brushes and entities: selecting a face drops brushes and entities, and
 * selecting a brush or an entity drops the faces. */
void allium_selection_select_face(AlliumSelection *self, gint64 brush, int face,
                                  AlliumSelectMode mode);
const AlliumFaceRef *allium_selection_get_faces(AlliumSelection *self, guint *count);
/* Replaces the selection by the faces FACES. */
void allium_selection_set_faces(AlliumSelection *self, const AlliumFaceRef *faces, guint count);

/* Replaces the selection by BRUSHES and ENTITIES (select all, invert, select by material
 * or class). */
void allium_selection_set_items(AlliumSelection *self, const gint64 *brushes, guint brush_count,
                                const gint64 *entities, guint entity_count);

/* Selects the brushes ROWS (REPLACE: only them; TOGGLE: adds them). */
void allium_selection_select_brushes(AlliumSelection *self, const gint64 *rows, guint count,
                                     AlliumSelectMode mode);

gboolean allium_selection_has_brush(AlliumSelection *self, gint64 brush);
gboolean allium_selection_is_empty(AlliumSelection *self);

/* The selected rows; *COUNT receives their number. Valid until the next change. */
const gint64 *allium_selection_get_brushes(AlliumSelection *self, guint *count);
const gint64 *allium_selection_get_entities(AlliumSelection *self, guint *count);

gboolean allium_selection_has_entity(AlliumSelection *self, gint64 entity);

/* What is hidden and locked, as rows: brushes, and entities (a point entity is drawn and
 * picked as its entity). */
typedef struct {
    const gint64 *hidden, *locked; /* brush rows */
    guint hidden_count, locked_count;
    const gint64 *hidden_entities, *locked_entities; /* entity rows */
    guint hidden_entity_count, locked_entity_count;
    const gint64 *tinted; /* brush rows whose layer has a colour */
    const guint32 *tints; /* that colour for each, 0xRRGGBBAA */
    guint tinted_count;
} AlliumMarks;

/* Replaces the hidden and locked brushes and entities and the tints by MARKS' (NULL:
 * none); the hidden and locked leave the selection, with their faces. "changed" only when
 * something changed. */
void allium_selection_set_marks(AlliumSelection *self, const AlliumMarks *marks);
/* Whether entity ENTITY is hidden, and whether a view may pick it (neither hidden nor
 * locked). */
gboolean allium_selection_is_entity_hidden(AlliumSelection *self, gint64 entity);
gboolean allium_selection_is_entity_pickable(AlliumSelection *self, gint64 entity);
guint allium_selection_get_hidden_entity_count(AlliumSelection *self);
/* The colour of BRUSH's layer as 0xRRGGBBAA (the 2D views draw its outline so), 0 when
 * it has none; how many brushes have one. */
guint32 allium_selection_get_tint(AlliumSelection *self, gint64 brush);
guint allium_selection_get_tint_count(AlliumSelection *self);
/* How many brushes and entities are locked (by their marks, groups or layers). */
guint allium_selection_get_locked_count(AlliumSelection *self);
gboolean allium_selection_is_locked(AlliumSelection *self, gint64 brush);
/* Whether a view may pick BRUSH: neither hidden nor locked. */
gboolean allium_selection_is_pickable(AlliumSelection *self, gint64 brush);
gboolean allium_selection_is_hidden(AlliumSelection *self, gint64 brush);
guint allium_selection_get_hidden_count(AlliumSelection *self);
/* The hidden rows, ascending, g_malloc'd (g_free), *COUNT of them; NULL when none. */
gint64 *allium_selection_dup_hidden(AlliumSelection *self, guint *count);

/* The tool guides: COUNT / 2 segments (point pairs, map units), copied; NULL or 0 clears
 * them. The guides of an edit just made stay until the document publishes a snapshot of
 * generation UNTIL (0: until they are replaced), so that what was moved does not jump
 * back while it compiles. */
void allium_selection_set_guides(AlliumSelection *self, const double (*points)[3], guint count,
                                 guint64 until);
const double (*allium_selection_get_guides(AlliumSelection *self, guint *count))[3];
/* The rotation centre the designer placed (Ctrl+Alt+drag in a 2D view): free rotations
 * turn about it rather than about the middle of the selection. POINT NULL removes it; any
 * change of what is selected removes it too. Setting it emits "guides-changed" (the views
 * draw it). allium_selection_get_pivot returns FALSE when there is none. */
void allium_selection_set_pivot(AlliumSelection *self, const double point[3]);
gboolean allium_selection_get_pivot(AlliumSelection *self, double point[3]);
/* Clears the guides that waited for generation GENERATION or an older one. */
void allium_selection_snapshot_arrived(AlliumSelection *self, guint64 generation);

/* Bumped by every change, so that views can tell whether their cached indices are stale. */
guint64 allium_selection_get_serial(AlliumSelection *self);

G_END_DECLS
