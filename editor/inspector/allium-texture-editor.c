/* AlliumTextureEditor (see allium-texture-editor.h).
 *
 * The fields are filled from the document (al_doc_face_texture of each selected face)
 * whenever the selection or the document changes; an edit goes to the document, whose
 * "changed" signal fills them again. Selections are a few faces to a few thousand: reading
 * each face's row is instant beside the compile the edit starts.
 */
#include "allium-config.h"

#include "allium-texture-editor.h"
#include "allium-error-label.h"
#include "allium-format.h"

#include "mapfile/texture.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

enum {
    FIELD_MATERIAL,
    FIELD_OFFSET_U,
    FIELD_OFFSET_V,
    FIELD_SCALE_U,
    FIELD_SCALE_V,
    FIELD_ROTATION,
    FIELD_COUNT
};

static const char *const FIELD_NAMES[FIELD_COUNT] = {"material", "offset-u", "offset-v",
                                                     "scale-u",  "scale-v",  "rotation"};
/* The data layer's field for each numeric one. */
static const al_texture_field FIELDS[FIELD_COUNT] = {
    0, AL_FIELD_OFFSET_U, AL_FIELD_OFFSET_V, AL_FIELD_SCALE_U, AL_FIELD_SCALE_V, AL_FIELD_ROTATION};

/* The buttons: name, label, tooltip, and the operation. */
typedef struct {
    const char *name;
    const char *label;
    const char *tooltip;
    al_align op;
} ButtonSpec;

static const ButtonSpec BUTTONS[] = {
    {"reset",
     N_("Reset"),
     N_("Align to the world: Quake's default axes, no offset or rotation, scale 1"),
     {.kind = AL_ALIGN_RESET}},
    {"to-face",
     N_("To Face"),
     N_("Axes in the face's plane (Valve 220 maps; axial faces in either format)"),
     {.kind = AL_ALIGN_TO_FACE}},
    {"fit",
     N_("Fit"),
     N_("The texture the given number of times across each face"),
     {.kind = AL_ALIGN_FIT}},
    {"justify-left",
     N_("Left"),
     N_("The texture's left edge on the face's"),
     {.kind = AL_ALIGN_JUSTIFY, .justify = AL_JUSTIFY_LEFT}},
    {"justify-right",
     N_("Right"),
     N_("The texture's right edge on the face's"),
     {.kind = AL_ALIGN_JUSTIFY, .justify = AL_JUSTIFY_RIGHT}},
    {"justify-top",
     N_("Top"),
     N_("The texture's top edge on the face's"),
     {.kind = AL_ALIGN_JUSTIFY, .justify = AL_JUSTIFY_TOP}},
    {"justify-bottom",
     N_("Bottom"),
     N_("The texture's bottom edge on the face's"),
     {.kind = AL_ALIGN_JUSTIFY, .justify = AL_JUSTIFY_BOTTOM}},
    {"justify-centre",
     N_("Centre"),
     N_("The texture's middle on the face's"),
     {.kind = AL_ALIGN_JUSTIFY, .justify = AL_JUSTIFY_CENTRE}},
    {"rotate-ccw-90",
     N_("−90°"),
     N_("Turn the texture by −90 degrees"),
     {.kind = AL_ALIGN_ROTATE, .value = {-90}}},
    {"rotate-ccw-15",
     N_("−15°"),
     N_("Turn the texture by −15 degrees"),
     {.kind = AL_ALIGN_ROTATE, .value = {-15}}},
    {"rotate-cw-15",
     N_("+15°"),
     N_("Turn the texture by 15 degrees"),
     {.kind = AL_ALIGN_ROTATE, .value = {15}}},
    {"rotate-cw-90",
     N_("+90°"),
     N_("Turn the texture by 90 degrees"),
     {.kind = AL_ALIGN_ROTATE, .value = {90}}},
};
#define BUTTON_COUNT G_N_ELEMENTS(BUTTONS)

struct _AlliumTextureEditor {
    GtkWidget parent_instance;

    /* child widgets */
    GtkWidget *box;
    GtkEditable *fields[FIELD_COUNT];
    GtkWidget *buttons[BUTTON_COUNT];
    GtkSpinButton *repeats[2];
    GtkLabel *message;

    /* owned references */
    AlliumDocument *document;
    AlliumSelection *selection;
    gulong changed_handler, selection_handler;
    char *shown[FIELD_COUNT]; /* the text each field was filled with */

    gboolean updating; /* the fields are being filled: their signals are not edits */
};

G_DEFINE_FINAL_TYPE(AlliumTextureEditor, allium_texture_editor, GTK_TYPE_WIDGET)

/* --- static helpers ------------------------------------------------------------------ */

static void set_message(AlliumTextureEditor *self, const char *text)
{
    allium_error_label_set(self->message, text);
}

static int field_index(const char *name)
{
    for (int i = 0; name && i < FIELD_COUNT; i++)
        if (g_str_equal(FIELD_NAMES[i], name)) return i;
    return -1;
}

static const AlliumFaceRef *selected_faces(AlliumTextureEditor *self, guint *count)
{
    *count = 0;
    if (!self->selection || !self->document) return NULL;
    return allium_selection_get_faces(self->selection, count);
}

/* A stored texture as the face parameters al_texture_field_value reads. */
static void texture_face(const al_doc_texture *t, al_map_face *f)
{
    memset(f, 0, sizeof *f);
    f->valve = t->valve;
    memcpy(f->u_axis, t->u_axis, sizeof f->u_axis);
    memcpy(f->v_axis, t->v_axis, sizeof f->v_axis);
    f->u_offset = t->u_offset;
    f->v_offset = t->v_offset;
    memcpy(f->offset, t->offset, sizeof f->offset);
    f->rotation = t->rotation;
    memcpy(f->scale, t->scale, sizeof f->scale);
}

/* Fills the fields from the selected faces: a value all of them share, or "" (mixed). */
static void refresh(AlliumTextureEditor *self)
{
    guint count;
    const AlliumFaceRef *faces = selected_faces(self, &count);
    al_doc *doc = self->document ? allium_document_get_doc(self->document) : NULL;
    gtk_widget_set_visible(GTK_WIDGET(self), count > 0 && doc);
    if (!count || !doc) return;
    char *text[FIELD_COUNT] = {0};
    gboolean mixed[FIELD_COUNT] = {0};
    for (guint i = 0; i < count; i++) {
        al_doc_texture t;
        if (al_doc_face_texture(doc, faces[i].brush, faces[i].face, &t) != AL_OK) continue;
        al_map_face f;
        texture_face(&t, &f);
        for (int k = 0; k < FIELD_COUNT; k++) {
            char number[ALLIUM_NUMBER_SIZE];
            const char *value =
                k == FIELD_MATERIAL
                    ? t.material
                    : allium_format_short(number, al_texture_field_value(&f, FIELDS[k]), 4);
            if (!text[k])
                text[k] = g_strdup(value);
            else if (!g_str_equal(text[k], value))
                mixed[k] = TRUE;
        }
    }
    self->updating = TRUE;
    for (int k = 0; k < FIELD_COUNT; k++) {
        const char *value = text[k] && !mixed[k] ? text[k] : "";
        g_free(self->shown[k]);
        self->shown[k] = g_strdup(value);
        gtk_editable_set_text(self->fields[k], value);
        gtk_entry_set_placeholder_text(GTK_ENTRY(self->fields[k]), mixed[k] ? _("mixed") : NULL);
        g_free(text[k]);
    }
    self->updating = FALSE;
}

/* Commits field K if its text differs from what it was filled with. */
static gboolean commit(AlliumTextureEditor *self, int k)
{
    if (self->updating) return TRUE;
    guint count;
    const AlliumFaceRef *faces = selected_faces(self, &count);
    if (!count) return FALSE;
    g_autofree char *text = g_strstrip(g_strdup(gtk_editable_get_text(self->fields[k])));
    if (self->shown[k] && g_str_equal(text, self->shown[k])) return TRUE;
    if (!*text) {
        /* Emptied (or a mixed field left empty): nothing to set; show the values again. */
        refresh(self);
        return TRUE;
    }
    GError *error = NULL;
    gboolean ok;
    if (k == FIELD_MATERIAL) {
        ok = allium_document_apply_material(self->document, text, NULL, 0, faces, count, &error);
    } else {
        char *end;
        double value = g_ascii_strtod(text, &end);
        if (end == text || *end || !isfinite(value)) {
            set_message(self, _("A number is needed here"));
            return FALSE;
        }
        if ((FIELDS[k] == AL_FIELD_SCALE_U || FIELDS[k] == AL_FIELD_SCALE_V) && value == 0) {
            set_message(self, _("A scale of 0 would squeeze the texture to nothing"));
            return FALSE;
        }
        al_align a = {.kind = AL_ALIGN_SET, .field = FIELDS[k], .value = {value}};
        ok = allium_document_align_faces(self->document, faces, count, &a, NULL, NULL, &error);
    }
    set_message(self, ok ? NULL : error->message);
    g_clear_error(&error);
    if (ok) refresh(self); /* the document's "changed" did too; again for an unchanged value */
    return ok;
}

/* --- signal callbacks ---------------------------------------------------------------- */

static void field_activate_cb(GtkEntry *entry, AlliumTextureEditor *self)
{
    for (int k = 0; k < FIELD_COUNT; k++)
        if (self->fields[k] == GTK_EDITABLE(entry)) commit(self, k);
}

static void field_leave_cb(GtkEventControllerFocus *focus, AlliumTextureEditor *self)
{
    GtkWidget *entry = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(focus));
    for (int k = 0; k < FIELD_COUNT; k++)
        if (self->fields[k] == GTK_EDITABLE(entry)) commit(self, k);
}

static void button_clicked_cb(GtkButton *button, AlliumTextureEditor *self)
{
    for (guint i = 0; i < BUTTON_COUNT; i++)
        if (self->buttons[i] == GTK_WIDGET(button)) {
            al_align a = BUTTONS[i].op;
            if (a.kind == AL_ALIGN_FIT)
                for (int k = 0; k < 2; k++)
                    a.value[k] = gtk_spin_button_get_value(self->repeats[k]);
            allium_texture_editor_align(self, &a);
        }
}

static void changed_cb(gpointer source, AlliumTextureEditor *self)
{
    (void) source;
    refresh(self);
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_texture_editor_dispose(GObject *object)
{
    AlliumTextureEditor *self = ALLIUM_TEXTURE_EDITOR(object);
    allium_texture_editor_set_document(self, NULL);
    allium_texture_editor_set_selection(self, NULL);
    g_clear_pointer(&self->box, gtk_widget_unparent);
    G_OBJECT_CLASS(allium_texture_editor_parent_class)->dispose(object);
}

static void allium_texture_editor_finalize(GObject *object)
{
    AlliumTextureEditor *self = ALLIUM_TEXTURE_EDITOR(object);
    for (int k = 0; k < FIELD_COUNT; k++) g_free(self->shown[k]);
    G_OBJECT_CLASS(allium_texture_editor_parent_class)->finalize(object);
}

static void allium_texture_editor_class_init(AlliumTextureEditorClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = allium_texture_editor_dispose;
    G_OBJECT_CLASS(klass)->finalize = allium_texture_editor_finalize;
    gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "allium-texture-editor");
}

static GtkWidget *new_field(AlliumTextureEditor *self, int k, int width)
{
    GtkWidget *entry = gtk_entry_new();
    gtk_editable_set_width_chars(GTK_EDITABLE(entry), width);
    gtk_widget_set_hexpand(entry, TRUE);
    gtk_widget_set_name(entry, FIELD_NAMES[k]);
    g_signal_connect(entry, "activate", G_CALLBACK(field_activate_cb), self);
    GtkEventController *focus = gtk_event_controller_focus_new();
    g_signal_connect(focus, "leave", G_CALLBACK(field_leave_cb), self);
    gtk_widget_add_controller(entry, focus);
    self->fields[k] = GTK_EDITABLE(entry);
    return entry;
}

static GtkWidget *heading(const char *text)
{
    GtkWidget *label = gtk_label_new(text);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_add_css_class(label, "dim-label");
    return label;
}

/* A row of the buttons FIRST .. LAST - 1, linked. */
static GtkWidget *button_row(AlliumTextureEditor *self, guint first, guint last)
{
    GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    gtk_widget_add_css_class(row, "linked");
    for (guint i = first; i < last; i++) {
        GtkWidget *b = gtk_button_new_with_label(_(BUTTONS[i].label));
        gtk_widget_set_tooltip_text(b, _(BUTTONS[i].tooltip));
        gtk_widget_set_name(b, BUTTONS[i].name);
        gtk_widget_set_hexpand(b, TRUE);
        g_signal_connect(b, "clicked", G_CALLBACK(button_clicked_cb), self);
        self->buttons[i] = b;
        gtk_box_append(GTK_BOX(row), b);
    }
    return row;
}

static void allium_texture_editor_init(AlliumTextureEditor *self)
{
    self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    gtk_widget_set_parent(self->box, GTK_WIDGET(self));
    gtk_box_append(GTK_BOX(self->box), heading(_("Texture")));

    GtkGrid *grid = GTK_GRID(gtk_grid_new());
    gtk_grid_set_row_spacing(grid, 4);
    gtk_grid_set_column_spacing(grid, 6);
    gtk_grid_attach(grid, heading(_("Name")), 0, 0, 1, 1);
    gtk_grid_attach(grid, new_field(self, FIELD_MATERIAL, 10), 1, 0, 2, 1);
    gtk_grid_attach(grid, heading(_("Offset")), 0, 1, 1, 1);
    gtk_grid_attach(grid, new_field(self, FIELD_OFFSET_U, 5), 1, 1, 1, 1);
    gtk_grid_attach(grid, new_field(self, FIELD_OFFSET_V, 5), 2, 1, 1, 1);
    gtk_grid_attach(grid, heading(_("Scale")), 0, 2, 1, 1);
    gtk_grid_attach(grid, new_field(self, FIELD_SCALE_U, 5), 1, 2, 1, 1);
    gtk_grid_attach(grid, new_field(self, FIELD_SCALE_V, 5), 2, 2, 1, 1);
    gtk_grid_attach(grid, heading(_("Rotation")), 0, 3, 1, 1);
    gtk_grid_attach(grid, new_field(self, FIELD_ROTATION, 5), 1, 3, 1, 1);
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->fields[FIELD_OFFSET_U]), _("U offset, in texels"));
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->fields[FIELD_OFFSET_V]), _("V offset, in texels"));
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->fields[FIELD_SCALE_U]),
                                _("U scale: units per texel (negative mirrors)"));
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->fields[FIELD_SCALE_V]),
                                _("V scale: units per texel (negative mirrors)"));
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->fields[FIELD_ROTATION]),
                                _("Rotation, in degrees"));
    gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(grid));

    /* Reset, To Face; Fit with its repeats; justify; turn. */
    gtk_box_append(GTK_BOX(self->box), button_row(self, 0, 2));
    GtkWidget *fit = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
    gtk_box_append(GTK_BOX(fit), button_row(self, 2, 3));
    for (int k = 0; k < 2; k++) {
        self->repeats[k] = GTK_SPIN_BUTTON(gtk_spin_button_new_with_range(1, 64, 1));
        gtk_widget_set_tooltip_text(GTK_WIDGET(self->repeats[k]),
                                    k ? _("Times down the face") : _("Times across the face"));
        gtk_box_append(GTK_BOX(fit), GTK_WIDGET(self->repeats[k]));
        if (!k) gtk_box_append(GTK_BOX(fit), gtk_label_new("×"));
    }
    gtk_box_append(GTK_BOX(self->box), fit);
    gtk_box_append(GTK_BOX(self->box), heading(_("Justify")));
    gtk_box_append(GTK_BOX(self->box), button_row(self, 3, 8));
    gtk_box_append(GTK_BOX(self->box), heading(_("Rotate")));
    gtk_box_append(GTK_BOX(self->box), button_row(self, 8, BUTTON_COUNT));

    self->message = allium_error_label_new();
    gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->message));
    gtk_widget_set_visible(GTK_WIDGET(self), FALSE);
}

/* --- public API ---------------------------------------------------------------------- */

GtkWidget *allium_texture_editor_new(void)
{
    return g_object_new(ALLIUM_TYPE_TEXTURE_EDITOR, NULL);
}

void allium_texture_editor_set_document(AlliumTextureEditor *self, AlliumDocument *document)
{
    g_return_if_fail(ALLIUM_IS_TEXTURE_EDITOR(self));
    if (self->document == document) return;
    if (self->document) {
        g_clear_signal_handler(&self->changed_handler, self->document);
        g_clear_object(&self->document);
    }
    if (document) {
        self->document = g_object_ref(document);
        self->changed_handler = g_signal_connect(document, "changed", G_CALLBACK(changed_cb), self);
    }
    refresh(self);
}

void allium_texture_editor_set_selection(AlliumTextureEditor *self, AlliumSelection *selection)
{
    g_return_if_fail(ALLIUM_IS_TEXTURE_EDITOR(self));
    if (self->selection == selection) return;
    if (self->selection) {
        g_clear_signal_handler(&self->selection_handler, self->selection);
        g_clear_object(&self->selection);
    }
    if (selection) {
        self->selection = g_object_ref(selection);
        self->selection_handler =
            g_signal_connect(selection, "changed", G_CALLBACK(changed_cb), self);
    }
    set_message(self, NULL);
    refresh(self);
}

const char *allium_texture_editor_get_text(AlliumTextureEditor *self, const char *name)
{
    g_return_val_if_fail(ALLIUM_IS_TEXTURE_EDITOR(self), NULL);
    int k = field_index(name);
    return k < 0 ? NULL : gtk_editable_get_text(self->fields[k]);
}

GtkWidget *allium_texture_editor_get_widget(AlliumTextureEditor *self, const char *name)
{
    g_return_val_if_fail(ALLIUM_IS_TEXTURE_EDITOR(self), NULL);
    int k = field_index(name);
    if (k >= 0) return GTK_WIDGET(self->fields[k]);
    for (guint i = 0; name && i < BUTTON_COUNT; i++)
        if (g_str_equal(BUTTONS[i].name, name)) return self->buttons[i];
    return NULL;
}

gboolean allium_texture_editor_edit(AlliumTextureEditor *self, const char *name, const char *text)
{
    g_return_val_if_fail(ALLIUM_IS_TEXTURE_EDITOR(self), FALSE);
    int k = field_index(name);
    if (k < 0) return FALSE;
    gtk_editable_set_text(self->fields[k], text);
    return commit(self, k);
}

gboolean allium_texture_editor_align(AlliumTextureEditor *self, const al_align *a)
{
    g_return_val_if_fail(ALLIUM_IS_TEXTURE_EDITOR(self), FALSE);
    guint count;
    const AlliumFaceRef *faces = selected_faces(self, &count);
    if (!count) return FALSE;
    GError *error = NULL;
    int refused = 0;
    gboolean ok =
        allium_document_align_faces(self->document, faces, count, a, NULL, &refused, &error);
    if (!ok)
        set_message(self, error->message);
    else if (refused)
        set_message(self, a->kind == AL_ALIGN_TO_FACE
                              ? _("Some faces are sloped: only Valve 220 faces hold axes in a "
                                  "sloped face's plane")
                              : _("Some faces could not be aligned so"));
    else
        set_message(self, NULL);
    g_clear_error(&error);
    return ok;
}

const char *allium_texture_editor_get_message(AlliumTextureEditor *self)
{
    g_return_val_if_fail(ALLIUM_IS_TEXTURE_EDITOR(self), "");
    return gtk_label_get_text(self->message);
}
