/* AlliumTextureEditor: the texture of the selected faces in the inspector, editable.
 *
 * Fields for the material, the offsets, the scales and the rotation show the faces' values,
 * or nothing with "mixed" greyed in when the faces differ; a field commits on Enter and
 * when the focus leaves it, and sets that field alone on every selected face (the others
 * keep their values) as one undoable step. Buttons below align the texture: reset to
 * Quake's default (align to world), align to the face (Valve 220), fit the texture U x V
 * times across each face, justify it to the face's left, right, top, bottom or centre, and
 * turn it by 15 or 90 degrees. The math is data/'s (al_texture_align); the document does
 * each operation as one step (allium_document_align_faces).
 */
#pragma once

#include "allium-document.h"
#include "allium-selection.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define ALLIUM_TYPE_TEXTURE_EDITOR (allium_texture_editor_get_type())
G_DECLARE_FINAL_TYPE(AlliumTextureEditor, allium_texture_editor, ALLIUM, TEXTURE_EDITOR, GtkWidget)

GtkWidget *allium_texture_editor_new(void);

void allium_texture_editor_set_document(AlliumTextureEditor *self, AlliumDocument *document);
void allium_texture_editor_set_selection(AlliumTextureEditor *self, AlliumSelection *selection);

/* The field named NAME ("material", "offset-u", "offset-v", "scale-u", "scale-v",
 * "rotation") as shown: its text ("" when the faces differ), or NULL for no such field. */
const char *allium_texture_editor_get_text(AlliumTextureEditor *self, const char *name);

/* The widget of field NAME (a GtkEntry) or of button NAME ("reset", "to-face", "fit",
 * "justify-left", "justify-right", "justify-top", "justify-bottom", "justify-centre",
 * "rotate-ccw-90", "rotate-ccw-15", "rotate-cw-15", "rotate-cw-90"); NULL if none. */
GtkWidget *allium_texture_editor_get_widget(AlliumTextureEditor *self, const char *name);

/* Types TEXT into field NAME and commits it, as the designer would; FALSE when refused
 * (the message then says why) or when nothing is selected. */
gboolean allium_texture_editor_edit(AlliumTextureEditor *self, const char *name, const char *text);

/* Applies A to the selected faces (what the buttons do). */
gboolean allium_texture_editor_align(AlliumTextureEditor *self, const al_align *a);

/* The message shown under the fields ("" if none). */
const char *allium_texture_editor_get_message(AlliumTextureEditor *self);

G_END_DECLS
