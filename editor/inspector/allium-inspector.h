/* AlliumInspector: the properties of the selection, in the window's side panel.
 *
 * - One entity selected (or brushes of one brush entity): its key/value pairs, each
 *   editable. Typed editors where the key says what the value is: colours (`_color`, a
 *   colour button next to the text), numbers (`light`, `count`, `speed`, `angle`, ...),
 *   vectors (`origin`, `mangle`, ...), and a list of the map's hulls for `hull`. A value
 *   that does not fit its type is refused with a message under the list, and nothing is
 *   written. Rows can be removed (not `classname`, nor a point entity's `origin`) and
 *   added (a new key and its value). Every change is one undoable step of the document.
 *   A key's tooltip says what the entity definitions say of it for the entity's class
 *   (its name, description, default, choices or flags), and a key they type gets that
 *   editor and check: flags (spawnflags, shown even when unset) as named check buttons
 *   beside the number, choices as a drop-down, integers and floats as spin buttons,
 *   target, killtarget and targetname with a list of the map's targetnames beside the
 *   text, and mangle and angles as three numbers. A plain number key (angle, speed, ...)
 *   gets a spin button too when its value is a plain decimal number.
 * - Brushes: how many, their bounds and size, the materials of their faces and the entity
 *   they belong to.
 * - Nothing: the map's own properties (worldspawn).
 *
 * The inspector follows the selection and the document's newest snapshot; a new snapshot
 * rebuilds it only when what it shows changed, so typing is not interrupted by compiles.
 */
#pragma once

#include "allium-angle-dial.h"
#include "allium-document.h"
#include "allium-selection.h"
#include "allium-texture-editor.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_INSPECTOR (allium_inspector_get_type())
G_DECLARE_FINAL_TYPE(AlliumInspector, allium_inspector, ALLIUM, INSPECTOR, GtkWidget)

GtkWidget *allium_inspector_new(void);

void allium_inspector_set_document(AlliumInspector *self, AlliumDocument *document);
void allium_inspector_set_selection(AlliumInspector *self, AlliumSelection *selection);

/* The kind of value KEY holds, for the typed editors and their checks. */
typedef enum {
    ALLIUM_VALUE_TEXT,
    ALLIUM_VALUE_NUMBER,
    ALLIUM_VALUE_VECTOR, /* three numbers */
    ALLIUM_VALUE_COLOUR, /* three numbers, 0..1 or 0..255 */
    ALLIUM_VALUE_HULL,   /* the name of one of the map's hulls */
} AlliumValueKind;

AlliumValueKind allium_value_kind_of(const char *key);

/* The kind of value KEY holds on an entity of CLASSNAME (NULL: unknown): what the entity
 * definitions DEFS (NULL: none) type it (integer and float: a number; color255 and color1:
 * a colour), else allium_value_kind_of. */
AlliumValueKind allium_value_kind_for(const al_entdefs *defs, const char *classname,
                                      const char *key);

/* Whether VALUE is acceptable for KEY; if not, *MESSAGE (free with g_free) says why,
 * naming the key ("speed: \"fast\" is not a number"). Values and keys may not hold a
 * double quote (the .map format could not store them); keys may not be empty. */
gboolean allium_value_check(const char *key, const char *value, char **message);

/* The same for KEY of an entity of CLASSNAME (allium_value_kind_for). */
gboolean allium_value_check_for(const al_entdefs *defs, const char *classname, const char *key,
                                const char *value, char **message);

/* Test hooks: the value shown for KEY (NULL: no such row), and the whole edit of one row,
 * as typing VALUE and pressing Enter does (NULL VALUE: the row's remove button). Returns
 * whether it was written; a refusal shows its message, see allium_inspector_get_message. */
const char *allium_inspector_get_value(AlliumInspector *self, const char *key);
gboolean allium_inspector_edit(AlliumInspector *self, const char *key, const char *value);
/* The tooltip of KEY's name: the key, then what the entity definitions say of it for the
 * entity's class (NULL: no such row). */
const char *allium_inspector_get_key_tooltip(AlliumInspector *self, const char *key);
/* The dial beside KEY's number (a direction: "angle" but a light's, or the yaw of
 * "mangle" or "angles"), or NULL. */
AlliumAngleDial *allium_inspector_get_angle_dial(AlliumInspector *self, const char *key);
/* The button that sets the direction KEY to ANGLE, -1 (up) or -2 (down), or NULL. */
GtkButton *allium_inspector_get_vertical_button(AlliumInspector *self, const char *key, int angle);
/* Whether KEY's row is a key the class defines and the entity lacks (greyed, showing the
 * definition's default; the first change adds the key). */
gboolean allium_inspector_is_absent(AlliumInspector *self, const char *key);
/* The widget that edits KEY's value (an entry, or the list of hulls); NULL: no such row. */
GtkWidget *allium_inspector_get_editor(AlliumInspector *self, const char *key);
/* The check button of flag BIT of the flags key KEY (spawnflags), or NULL. */
GtkCheckButton *allium_inspector_get_flag_button(AlliumInspector *self, const char *key,
                                                 unsigned bit);
/* The list of the map's targetnames beside the target key KEY, or NULL. */
GtkDropDown *allium_inspector_get_name_list(AlliumInspector *self, const char *key);
/* The message under the list ("" when none). */
const char *allium_inspector_get_message(AlliumInspector *self);
/* What the inspector shows: "entity", "brushes", "world" or "none". */
const char *allium_inspector_get_subject(AlliumInspector *self);
/* The description under the title (the selected brushes' bounds, size and faces). */
const char *allium_inspector_get_detail(AlliumInspector *self);

/* The editor of the selected faces' texture, shown in the panel when faces are selected. */
AlliumTextureEditor *allium_inspector_get_texture_editor(AlliumInspector *self);

G_END_DECLS
