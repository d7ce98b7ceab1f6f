/* AlliumInspector: properties of the selection (allium-inspector.h).
 *
 * The panel's rows are rebuilt from scratch whenever what they show changes: the selection,
 * or the shown entity's properties in a new snapshot (a "fingerprint" of the content
 * tells); its title and description follow every snapshot. Rows
 * commit on Enter and when the focus leaves them, only if the text changed; a commit goes
 * through allium_value_check and then allium_document_set_entity_property, whose compile
 * brings the new snapshot that rebuilds the panel.
 */
#include "allium-config.h"

#include "allium-inspector.h"
#include "allium-angle-dial.h"
#include "allium-entity-definitions.h"
#include "allium-error-label.h"
#include "allium-format.h"
#include "allium-texture-editor.h"

#include "al-plane.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

/* One property's row. Its widgets can outlive the panel's rebuild that drops the row (a
 * rebuild can come in the middle of the row's own commit, and a removed entry that had the
 * focus still reports losing it), so a row is reference-counted: the panel's list holds
 * one reference and every signal handler of its widgets another. A rebuild detaches the
 * row (owner and widgets NULL), and a detached row's handlers do nothing. */
typedef struct {
    int refs;
    AlliumInspector *owner; /* borrowed; NULL once the row is detached */
    char *key;
    GtkEditable *entry;      /* the text (a spin button's for numbers); NULL for lists and
                              * three-number rows */
    GtkDropDown *hulls;      /* ALLIUM_VALUE_HULL */
    GtkColorButton *colour;  /* ALLIUM_VALUE_COLOUR */
    GtkDropDown *choices;    /* a "choices" key of the definitions */
    char **choice_values;    /* owned: the value of each item of CHOICES */
    GtkDropDown *names;      /* a target key: the map's targetnames to pick from */
    GtkSpinButton *vector[3];  /* an angle triple: mangle, angles */
    AlliumAngleDial *dial;     /* a direction: "angle", or the yaw of a triple */
    int dial_index;            /* which of VECTOR the dial sets; -1: ENTRY's number */
    GtkCheckButton *flags[32]; /* a "flags" key: one check button per flag */
    unsigned flag_bits[32];
    int flag_count;
    GtkWidget *label;        /* the key, its tooltip what the entity definitions say of it */
    /* A key the entity's class defines but the entity lacks: shown greyed with the
     * definition's default (SHOWN, owned); the first change adds it. */
    gboolean absent;
    char *shown;
} Row;

struct _AlliumInspector {
    GtkWidget parent_instance;

    GtkWidget *scroller;
    GtkLabel *title, *detail, *message;
    GtkGrid *grid;
    GtkWidget *add_box;
    GtkEditable *new_key, *new_value;
    AlliumTextureEditor *texture_editor;

    AlliumDocument *document;
    AlliumSelection *selection;
    gulong compiled_handler, selection_handler;

    gint64 entity_row;      /* the entity whose rows are shown; -1: none (the world is 0) */
    gboolean point_entity;  /* it has no brushes */
    const char *subject;    /* static string: "entity", "brushes", "world", "none" */
    char *fingerprint;
    GPtrArray *rows;        /* Row*, owned */
    gboolean rebuilding;    /* widgets are being replaced: ignore their signals */
};

G_DEFINE_FINAL_TYPE(AlliumInspector, allium_inspector, GTK_TYPE_WIDGET)

/* --- values ------------------------------------------------------------------------ */

static const char *const NUMBER_KEYS[] = {"light", "count", "speed", "angle", "wait", "delay",
                                          "_cone", "_softangle", "_sunlight", "style",
                                          "_luxel", "health", "lip", "dmg", NULL};
/* The light keys ericw-tools adds to Quake's. */
static const char *const LIGHT_NUMBER_KEYS[] = {
    "_falloff",        "_anglescale", "_anglesense", "_deviance",  "_samples",
    "_surface_offset", "_minlight",   "_sunlight2",  "_sunlight3", "_sunlight_penumbra",
    "_dist",           "_range",      NULL};
static const char *const VECTOR_KEYS[] = {"origin",           "mangle", "_sun_mangle",
                                          "_sunlight_mangle", "angles", NULL};
static const char *const COLOUR_KEYS[] = {"_color",
                                          "_sunlight_color",
                                          "_sunlight2_color",
                                          "_sunlight_color2",
                                          "_sunlight3_color",
                                          "_sunlight_color3",
                                          "_mincolor",
                                          "_minlight_color",
                                          "color",
                                          "_colour",
                                          NULL};

static gboolean in_list(const char *const *list, const char *key)
{
    for (int i = 0; list[i]; i++)
        if (g_ascii_strcasecmp(list[i], key) == 0) return TRUE;
    return FALSE;
}

AlliumValueKind allium_value_kind_of(const char *key)
{
    if (in_list(NUMBER_KEYS, key) || in_list(LIGHT_NUMBER_KEYS, key)) return ALLIUM_VALUE_NUMBER;
    if (in_list(VECTOR_KEYS, key)) return ALLIUM_VALUE_VECTOR;
    if (in_list(COLOUR_KEYS, key)) return ALLIUM_VALUE_COLOUR;
    if (g_ascii_strcasecmp(key, "hull") == 0) return ALLIUM_VALUE_HULL;
    return ALLIUM_VALUE_TEXT;
}

/* Reads up to MAX finite numbers separated by spaces; the count, or -1 if anything else is
 * in TEXT. */
static int read_numbers(const char *text, double *out, int max)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        while (g_ascii_isspace(*p)) p++;
        if (!*p) return n;
        char *end;
        double v = g_ascii_strtod(p, &end);
        if (end == p || !isfinite(v) || n == max) return -1;
        out[n++] = v;
        p = end;
        if (*p && !g_ascii_isspace(*p)) return -1;
    }
}

AlliumValueKind allium_value_kind_for(const al_entdefs *defs, const char *classname,
                                      const char *key)
{
    const al_entdef_property *p =
        defs && classname && key ? al_entdef_find_property(al_entdefs_find(defs, classname), key)
                                 : NULL;
    if (p && (p->type == AL_PROP_INTEGER || p->type == AL_PROP_FLOAT || p->type == AL_PROP_FLAGS))
        return ALLIUM_VALUE_NUMBER;
    if (p && p->type == AL_PROP_CHOICES && p->choice_count > 0) {
        /* Choices that are all numbers (Quake's are) make a number key. */
        double v;
        gboolean numbers = TRUE;
        for (int i = 0; i < p->choice_count && numbers; i++)
            numbers = read_numbers(p->choices[i].value, &v, 1) == 1;
        if (numbers) return ALLIUM_VALUE_NUMBER;
    }
    if (p && (p->type == AL_PROP_COLOR255 || p->type == AL_PROP_COLOR1)) return ALLIUM_VALUE_COLOUR;
    return allium_value_kind_of(key);
}

gboolean allium_value_check(const char *key, const char *value, char **message)
{
    return allium_value_check_for(NULL, NULL, key, value, message);
}

gboolean allium_value_check_for(const al_entdefs *defs, const char *classname, const char *key,
                                const char *value, char **message)
{
    *message = NULL;
    if (!key || !*key || strspn(key, " \t") == strlen(key)) {
        *message = g_strdup(_("A property needs a name"));
        return FALSE;
    }
    if (strchr(key, '"') || strchr(key, '\n')) {
        *message = g_strdup_printf(_("%s: a name cannot hold quotes or line breaks"), key);
        return FALSE;
    }
    if (!value) return TRUE;
    if (strchr(value, '"') || strchr(value, '\n')) {
        *message = g_strdup_printf(_("%s: a value cannot hold quotes or line breaks"), key);
        return FALSE;
    }
    double v[3];
    switch (allium_value_kind_for(defs, classname, key)) {
    case ALLIUM_VALUE_NUMBER:
        if (read_numbers(value, v, 1) != 1) {
            *message = g_strdup_printf(_("%s: \"%s\" is not a number"), key, value);
            return FALSE;
        }
        break;
    case ALLIUM_VALUE_VECTOR:
        if (read_numbers(value, v, 3) != 3) {
            *message = g_strdup_printf(_("%s: \"%s\" is not three numbers (x y z)"), key, value);
            return FALSE;
        }
        break;
    case ALLIUM_VALUE_COLOUR:
        if (read_numbers(value, v, 3) != 3 || v[0] < 0 || v[1] < 0 || v[2] < 0 || v[0] > 255 ||
            v[1] > 255 || v[2] > 255) {
            *message = g_strdup_printf(_("%s: \"%s\" is not a colour (three numbers, 0 to 1 or "
                                         "0 to 255)"),
                                       key, value);
            return FALSE;
        }
        break;
    case ALLIUM_VALUE_HULL:
    case ALLIUM_VALUE_TEXT:
        if (g_ascii_strcasecmp(key, "classname") == 0 && !*value) {
            *message = g_strdup(_("classname: an entity needs a class"));
            return FALSE;
        }
        break;
    }
    return TRUE;
}

/* A colour value as an RGBA (0..255 values scaled down). */
static gboolean parse_colour(const char *text, GdkRGBA *out)
{
    double v[3];
    if (!text || read_numbers(text, v, 3) != 3) return FALSE;
    double scale = (v[0] > 1 || v[1] > 1 || v[2] > 1) ? 255.0 : 1.0;
    out->red = (float) CLAMP(v[0] / scale, 0, 1);
    out->green = (float) CLAMP(v[1] / scale, 0, 1);
    out->blue = (float) CLAMP(v[2] / scale, 0, 1);
    out->alpha = 1;
    return TRUE;
}

/* --- static helpers ------------------------------------------------------------------ */

static AlliumSnapshot *snapshot_of(AlliumInspector *self)
{
    return self->document ? allium_document_get_snapshot(self->document) : NULL;
}

/* The entity definitions of the snapshot shown (its keys are typed and explained by the
 * set it was checked against): never NULL. */
static const al_entdefs *definitions_of(AlliumInspector *self)
{
    static const al_entdefs none;
    AlliumSnapshot *snap = snapshot_of(self);
    return snap && snap->definitions ? &snap->definitions->defs : &none;
}

static Row *row_ref(Row *row)
{
    row->refs++;
    return row;
}

static void row_unref(gpointer data)
{
    Row *row = data;
    if (--row->refs > 0) return;
    g_strfreev(row->choice_values);
    g_free(row->key);
    g_free(row->shown);
    g_free(row);
}

/* The panel's list lets go of ROW: its widgets are on their way out. */
static void row_detach(gpointer data)
{
    Row *row = data;
    row->owner = NULL;
    row->entry = NULL;
    row->hulls = NULL;
    row->colour = NULL;
    row->choices = NULL;
    row->names = NULL;
    memset(row->vector, 0, sizeof row->vector);
    memset(row->flags, 0, sizeof row->flags);
    row->flag_count = 0;
    row_unref(row);
}

static void row_closure_notify(gpointer data, GClosure *closure)
{
    (void) closure;
    row_unref(data);
}

/* Connects HANDLER to SIGNAL of INSTANCE for ROW, holding a reference on ROW for as long as
 * the handler is connected. */
static void connect_row(gpointer instance, const char *signal, GCallback handler, Row *row)
{
    g_signal_connect_data(instance, signal, handler, row_ref(row), row_closure_notify, 0);
}

/* Whether ROW still belongs to a panel that is not being rebuilt. */
static gboolean row_live(const Row *row)
{
    return row->owner && !row->owner->rebuilding;
}

static void set_message(AlliumInspector *self, const char *text)
{
    allium_error_label_set(self->message, text);
}

static const char *shown_value(AlliumInspector *self, const char *key)
{
    AlliumSnapshot *snap = snapshot_of(self);
    int e =
        snap && self->entity_row >= 0 ? allium_snapshot_entity_index(snap, self->entity_row) : -1;
    return e >= 0 ? allium_snapshot_entity_value(snap, e, key) : NULL;
}

/* Writes KEY = VALUE (NULL: removes KEY) on the shown entity, after the checks. */
static gboolean commit(AlliumInspector *self, const char *key, const char *value)
{
    if (self->entity_row < 0 || !self->document) return FALSE;
    g_autofree char *message = NULL;
    if (!allium_value_check_for(definitions_of(self), shown_value(self, "classname"), key, value,
                                &message)) {
        set_message(self, message);
        return FALSE;
    }
    if (!value && (g_ascii_strcasecmp(key, "classname") == 0 ||
                   (self->point_entity && g_ascii_strcasecmp(key, "origin") == 0))) {
        g_autofree char *why = g_strdup_printf(_("%s cannot be removed: the entity needs it"), key);
        set_message(self, why);
        return FALSE;
    }
    if (g_strcmp0(shown_value(self, key), value) == 0) return TRUE; /* nothing changes */
    GError *error = NULL;
    if (!allium_document_set_entity_property(self->document, self->entity_row, key, value,
                                             &error)) {
        set_message(self, error->message);
        g_error_free(error);
        return FALSE;
    }
    set_message(self, NULL);
    return TRUE;
}

/* Commits the text of ROW's entry if it changed; FALSE if it was refused. The commit can
 * rebuild the panel (through the document's and the selection's signals): ROW is held
 * meanwhile, and a row detached by then is left alone. */
static gboolean row_commit(Row *row)
{
    if (!row_live(row) || !row->entry) return TRUE;
    const char *text = gtk_editable_get_text(row->entry);
    /* An absent key's default, left as it was, is not written. */
    const char *before = row->absent ? row->shown : shown_value(row->owner, row->key);
    if (g_strcmp0(text, before) == 0) return TRUE;
    g_autofree char *value = g_strdup(text);
    row_ref(row);
    gboolean ok = commit(row->owner, row->key, value);
    if (row->entry) {
        if (ok)
            gtk_widget_remove_css_class(GTK_WIDGET(row->entry), "error");
        else
            gtk_widget_add_css_class(GTK_WIDGET(row->entry), "error");
    }
    row_unref(row);
    return ok;
}

static void entry_activate_cb(GtkEntry *entry, Row *row)
{
    (void) entry;
    row_commit(row);
}

static void entry_leave_cb(GtkEventControllerFocus *focus, Row *row)
{
    (void) focus;
    row_commit(row);
}

static void remove_clicked_cb(GtkButton *button, Row *row)
{
    (void) button;
    if (row_live(row)) commit(row->owner, row->key, NULL);
}

static void colour_set_cb(GtkColorButton *button, Row *row)
{
    if (!row_live(row) || !row->entry) return;
    GdkRGBA c;
    gtk_color_chooser_get_rgba(GTK_COLOR_CHOOSER(button), &c);
    /* Keep the scale the map used (Quake maps write 0..255 as often as 0..1). */
    const char *before = shown_value(row->owner, row->key);
    gboolean bytes = FALSE;
    double v[3];
    if (before && read_numbers(before, v, 3) == 3) bytes = v[0] > 1 || v[1] > 1 || v[2] > 1;
    g_autofree char *text =
        bytes ? g_strdup_printf("%.0f %.0f %.0f", c.red * 255.0, c.green * 255.0, c.blue * 255.0)
              : g_strdup_printf("%.3g %.3g %.3g", c.red, c.green, c.blue);
    gtk_editable_set_text(row->entry, text);
    row_commit(row);
}

static void hull_selected_cb(GtkDropDown *dropdown, GParamSpec *pspec, Row *row)
{
    (void) pspec;
    if (!row_live(row)) return;
    GtkStringObject *item = gtk_drop_down_get_selected_item(dropdown);
    if (item) commit(row->owner, row->key, gtk_string_object_get_string(item));
}

static GtkWidget *make_entry(Row *row, const char *value)
{
    GtkWidget *entry = gtk_entry_new();
    gtk_editable_set_text(GTK_EDITABLE(entry), value);
    gtk_widget_set_hexpand(entry, TRUE);
    gtk_editable_set_width_chars(GTK_EDITABLE(entry), 8);
    connect_row(entry, "activate", G_CALLBACK(entry_activate_cb), row);
    GtkEventController *focus = gtk_event_controller_focus_new();
    connect_row(focus, "leave", G_CALLBACK(entry_leave_cb), row);
    gtk_widget_add_controller(entry, focus);
    row->entry = GTK_EDITABLE(entry);
    return entry;
}

/* --- typed editors from the entity definitions ---------------------------------------- */

static const char *const ANGLE_TRIPLE_KEYS[] = {"mangle", "angles", "_sun_mangle",
                                                "_sunlight_mangle", NULL};
static const char *const TARGET_KEYS[] = {"target", "killtarget", "targetname", NULL};

/* Whether CLASSNAME is a light: its "angle" is a spotlight's cone, not a direction, and its
 * "mangle" is yaw, pitch and roll (ericw-tools' order). */
static gboolean is_light(const char *classname)
{
    return classname && g_ascii_strncasecmp(classname, "light", 5) == 0;
}

/* Where the yaw is in KEY's three numbers: first in a light's "mangle" and in the sun's
 * keys (yaw, pitch, roll), second in "angles" and a camera's "mangle" (pitch, yaw, roll). */
static int yaw_index(const char *classname, const char *key)
{
    if (g_ascii_strcasecmp(key, "angles") == 0) return 1;
    if (g_ascii_strcasecmp(key, "mangle") == 0) return is_light(classname) ? 0 : 1;
    return 0;
}

/* Decimals written in TEXT, a plain decimal number ("-12", "0.25"); -1 for anything else
 * (exponents, several numbers), which keeps its text entry. */
static int plain_decimals(const char *text)
{
    const char *p = text;
    if (*p == '-' || *p == '+') p++;
    if (!g_ascii_isdigit(*p)) return -1;
    while (g_ascii_isdigit(*p)) p++;
    if (!*p) return 0;
    if (*p != '.') return -1;
    const char *dot = ++p;
    while (g_ascii_isdigit(*p)) p++;
    return *p || p - dot > 6 ? -1 : (int) (p - dot);
}

/* A number as short as it reads back: "3", "0.25", not "3.000". */
static char *format_number(double v, int digits)
{
    g_autofree char *text = g_strdup_printf("%.*f", digits, v);
    if (strchr(text, '.')) {
        char *end = text + strlen(text) - 1;
        while (*end == '0') *end-- = '\0';
        if (*end == '.') *end = '\0';
    }
    if (g_str_equal(text, "-0")) return g_strdup("0");
    return g_strdup(text);
}

/* Shows a float spin button's value in its shortest form. */
static gboolean spin_output_cb(GtkSpinButton *spin, gpointer data)
{
    (void) data;
    g_autofree char *text =
        format_number(gtk_spin_button_get_value(spin), (int) gtk_spin_button_get_digits(spin));
    if (!g_str_equal(text, gtk_editable_get_text(GTK_EDITABLE(spin))))
        gtk_editable_set_text(GTK_EDITABLE(spin), text);
    return TRUE;
}

static GtkWidget *make_spin(double value, int digits)
{
    double step = digits > 0 ? 0.1 : 1;
    GtkWidget *spin = gtk_spin_button_new_with_range(-1e7, 1e7, step);
    gtk_spin_button_set_digits(GTK_SPIN_BUTTON(spin), (guint) digits);
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(spin), value);
    g_signal_connect(spin, "output", G_CALLBACK(spin_output_cb), NULL);
    spin_output_cb(GTK_SPIN_BUTTON(spin), NULL);
    gtk_widget_set_hexpand(spin, TRUE);
    gtk_editable_set_width_chars(GTK_EDITABLE(spin), 6);
    return spin;
}

static void number_changed_cb(GtkSpinButton *spin, Row *row)
{
    if (!row_live(row)) return;
    g_autofree char *text =
        format_number(gtk_spin_button_get_value(spin), (int) gtk_spin_button_get_digits(spin));
    row_ref(row);
    commit(row->owner, row->key, text);
    row_unref(row);
}

static void vector_changed_cb(GtkSpinButton *spin, Row *row)
{
    (void) spin;
    if (!row_live(row)) return;
    char *parts[3];
    for (int k = 0; k < 3; k++)
        parts[k] = format_number(gtk_spin_button_get_value(row->vector[k]),
                                 (int) gtk_spin_button_get_digits(row->vector[k]));
    g_autofree char *text = g_strdup_printf("%s %s %s", parts[0], parts[1], parts[2]);
    for (int k = 0; k < 3; k++) g_free(parts[k]);
    row_ref(row);
    commit(row->owner, row->key, text);
    row_unref(row);
}

static void choice_selected_cb(GtkDropDown *dropdown, GParamSpec *pspec, Row *row)
{
    (void) pspec;
    if (!row_live(row) || !row->choice_values) return;
    guint i = gtk_drop_down_get_selected(dropdown);
    if (i < g_strv_length(row->choice_values)) {
        row_ref(row);
        commit(row->owner, row->key, row->choice_values[i]);
        row_unref(row);
    }
}

static void name_selected_cb(GtkDropDown *dropdown, GParamSpec *pspec, Row *row)
{
    (void) pspec;
    if (!row_live(row) || !row->entry) return;
    guint i = gtk_drop_down_get_selected(dropdown);
    GtkStringObject *item = gtk_drop_down_get_selected_item(dropdown);
    if (i == 0 || !item) return; /* the list's heading */
    gtk_editable_set_text(row->entry, gtk_string_object_get_string(item));
    row_commit(row);
}

static void flag_toggled_cb(GtkCheckButton *button, Row *row)
{
    if (!row_live(row) || !row->entry) return;
    unsigned bit = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(button), "allium-flag-bit"));
    const char *before = shown_value(row->owner, row->key);
    guint64 flags = before ? g_ascii_strtoull(before, NULL, 10) : 0;
    flags = gtk_check_button_get_active(button) ? flags | bit : flags & ~(guint64) bit;
    g_autofree char *text = g_strdup_printf("%" G_GUINT64_FORMAT, flags);
    gtk_editable_set_text(row->entry, text);
    row_commit(row);
}

/* g_ptr_array_sort's order of strings: it hands pointers to the elements. */
/* The dial was dragged: its angle into the number it sets, which commits as typing does. */
static void dial_set_cb(AlliumAngleDial *dial, double angle, Row *row)
{
    (void) dial;
    if (!row_live(row)) return;
    GtkSpinButton *spin =
        row->dial_index >= 0 ? row->vector[row->dial_index] : GTK_SPIN_BUTTON(row->entry);
    if (spin) gtk_spin_button_set_value(spin, angle);
}

/* The number the dial shows changed (typed, or set by the dial): the dial follows. */
static void dial_follow_cb(GtkSpinButton *spin, AlliumAngleDial *dial)
{
    allium_angle_dial_set_angle(dial, gtk_spin_button_get_value(spin));
}

/* "Up" and "Down" of an angle: Quake's -1 and -2. */
static void vertical_clicked_cb(GtkButton *button, Row *row)
{
    if (!row_live(row) || !row->entry) return;
    int value = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(button), "allium-angle"));
    gtk_spin_button_set_value(GTK_SPIN_BUTTON(row->entry), value);
}

/* A dial beside SPIN that sets it, for ROW's number DIAL_INDEX (-1: the row's entry). */
static GtkWidget *make_dial(Row *row, GtkWidget *spin, int dial_index)
{
    GtkWidget *dial = allium_angle_dial_new(gtk_spin_button_get_value(GTK_SPIN_BUTTON(spin)));
    gtk_widget_set_tooltip_text(dial, _("Drag to point the direction, as seen in the top view "
                                        "(15° steps; Shift: whole degrees)"));
    row->dial = ALLIUM_ANGLE_DIAL(dial);
    row->dial_index = dial_index;
    connect_row(dial, "angle-set", G_CALLBACK(dial_set_cb), row);
    g_signal_connect_object(spin, "value-changed", G_CALLBACK(dial_follow_cb), dial, 0);
    return dial;
}

static int compare_names(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(const char *const *) a, *(const char *const *) b);
}

/* The targetnames the map's entities carry, sorted, each once. */
static GtkStringList *map_target_names(AlliumInspector *self)
{
    GtkStringList *names = gtk_string_list_new(NULL);
    gtk_string_list_append(names, _("Names in the map…"));
    AlliumSnapshot *snap = snapshot_of(self);
    if (!snap) return names;
    const al_input *in = &snap->input.input;
    g_autoptr(GPtrArray) found = g_ptr_array_new();
    for (int e = 0; e < in->entity_count; e++)
        for (int p = 0; p < in->entities[e].property_count; p++) {
            const al_property *pr = &in->entities[e].properties[p];
            if (g_str_equal(pr->key, "targetname") && *pr->value &&
                !g_ptr_array_find_with_equal_func(found, pr->value, g_str_equal, NULL))
                g_ptr_array_add(found, (gpointer) pr->value);
        }
    g_ptr_array_sort(found, compare_names);
    for (guint i = 0; i < found->len; i++) gtk_string_list_append(names, found->pdata[i]);
    return names;
}

/* The editor a definition's type gives KEY, or NULL for the plain ones below. */
static GtkWidget *make_typed_editor(AlliumInspector *self, Row *row, const char *value,
                                    const al_entdef_property *p)
{
    gboolean target =
        in_list(TARGET_KEYS, row->key) ||
        (p && (p->type == AL_PROP_TARGET_SOURCE || p->type == AL_PROP_TARGET_DESTINATION));
    if (p && p->type == AL_PROP_FLAGS && p->flag_count > 0) {
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
        gtk_box_append(GTK_BOX(box), make_entry(row, value));
        guint64 flags = g_ascii_strtoull(value, NULL, 10);
        for (int i = 0; i < p->flag_count && row->flag_count < 32; i++) {
            const al_entdef_flag *f = &p->flags[i];
            g_autofree char *label = g_strdup_printf("%s (%u)", f->label, f->bit);
            GtkWidget *check = gtk_check_button_new_with_label(label);
            gtk_check_button_set_active(GTK_CHECK_BUTTON(check), (flags & f->bit) != 0);
            if (*f->description) gtk_widget_set_tooltip_text(check, f->description);
            g_object_set_data(G_OBJECT(check), "allium-flag-bit", GUINT_TO_POINTER(f->bit));
            connect_row(check, "toggled", G_CALLBACK(flag_toggled_cb), row);
            row->flags[row->flag_count] = GTK_CHECK_BUTTON(check);
            row->flag_bits[row->flag_count++] = f->bit;
            gtk_box_append(GTK_BOX(box), check);
        }
        return box;
    }
    if (p && p->type == AL_PROP_CHOICES && p->choice_count > 0) {
        GtkStringList *labels = gtk_string_list_new(NULL);
        GPtrArray *values = g_ptr_array_new();
        guint selected = GTK_INVALID_LIST_POSITION;
        for (int i = 0; i < p->choice_count; i++) {
            g_autofree char *label =
                g_strdup_printf("%s (%s)", p->choices[i].label, p->choices[i].value);
            gtk_string_list_append(labels, label);
            g_ptr_array_add(values, g_strdup(p->choices[i].value));
            if (g_str_equal(p->choices[i].value, value)) selected = (guint) i;
        }
        if (selected == GTK_INVALID_LIST_POSITION) {
            /* Not one of the choices: shown as it is, so it can be seen and fixed. */
            gtk_string_list_append(labels, value);
            g_ptr_array_add(values, g_strdup(value));
            selected = values->len - 1;
        }
        g_ptr_array_add(values, NULL);
        row->choice_values = (char **) g_ptr_array_free(values, FALSE);
        GtkWidget *dropdown = gtk_drop_down_new(G_LIST_MODEL(labels), NULL);
        gtk_drop_down_set_selected(GTK_DROP_DOWN(dropdown), selected);
        gtk_widget_set_hexpand(dropdown, TRUE);
        connect_row(dropdown, "notify::selected", G_CALLBACK(choice_selected_cb), row);
        row->choices = GTK_DROP_DOWN(dropdown);
        return dropdown;
    }
    if (in_list(ANGLE_TRIPLE_KEYS, row->key)) {
        double v[3];
        g_auto(GStrv) parts = g_strsplit_set(value, " \t", -1);
        int decimals[3], n = 0;
        for (int i = 0; parts[i] && n <= 3; i++) {
            if (!*parts[i]) continue;
            if (n == 3 || (decimals[n] = plain_decimals(parts[i])) < 0) return NULL;
            v[n++] = g_ascii_strtod(parts[i], NULL);
        }
        if (n != 3) return NULL;
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 2);
        static const char *pitch_first[3] = {N_("Pitch"), N_("Yaw"), N_("Roll")};
        static const char *yaw_first[3] = {N_("Yaw"), N_("Pitch"), N_("Roll")};
        int yaw = yaw_index(shown_value(self, "classname"), row->key);
        for (int k = 0; k < 3; k++) {
            GtkWidget *spin = make_spin(v[k], MAX(decimals[k], 0));
            gtk_widget_set_tooltip_text(spin, _(yaw == 0 ? yaw_first[k] : pitch_first[k]));
            connect_row(spin, "value-changed", G_CALLBACK(vector_changed_cb), row);
            row->vector[k] = GTK_SPIN_BUTTON(spin);
            gtk_box_append(GTK_BOX(box), spin);
        }
        gtk_box_append(GTK_BOX(box), make_dial(row, GTK_WIDGET(row->vector[yaw]), yaw));
        return box;
    }
    if (target) {
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
        gtk_box_append(GTK_BOX(box), make_entry(row, value));
        GtkWidget *dropdown = gtk_drop_down_new(G_LIST_MODEL(map_target_names(self)), NULL);
        gtk_widget_set_tooltip_text(dropdown, _("Pick a name that an entity of the map has"));
        connect_row(dropdown, "notify::selected", G_CALLBACK(name_selected_cb), row);
        row->names = GTK_DROP_DOWN(dropdown);
        gtk_box_append(GTK_BOX(box), dropdown);
        return box;
    }
    gboolean number = p ? p->type == AL_PROP_INTEGER || p->type == AL_PROP_FLOAT
                        : allium_value_kind_of(row->key) == ALLIUM_VALUE_NUMBER;
    /* A direction: a dial beside the number, and Quake's up and down. */
    gboolean direction =
        g_ascii_strcasecmp(row->key, "angle") == 0 && !is_light(shown_value(self, "classname"));
    if (direction && !*value) value = "0"; /* an absent key's empty default */
    int decimals = plain_decimals(value);
    if (number && decimals >= 0) {
        gboolean fractions = p ? p->type == AL_PROP_FLOAT : decimals > 0;
        GtkWidget *spin =
            make_spin(g_ascii_strtod(value, NULL), fractions ? MAX(decimals, 3) : decimals);
        row->entry = GTK_EDITABLE(spin);
        connect_row(spin, "value-changed", G_CALLBACK(number_changed_cb), row);
        if (!direction) return spin;
        GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 2);
        gtk_box_append(GTK_BOX(box), spin);
        gtk_box_append(GTK_BOX(box), make_dial(row, spin, -1));
        static const struct {
            const char *icon, *tip;
            int value;
        } vertical[2] = {{"go-up-symbolic", N_("Up (-1)"), -1},
                         {"go-down-symbolic", N_("Down (-2)"), -2}};
        for (int i = 0; i < 2; i++) {
            GtkWidget *button = gtk_button_new_from_icon_name(vertical[i].icon);
            gtk_widget_add_css_class(button, "flat");
            gtk_widget_set_tooltip_text(button, _(vertical[i].tip));
            g_object_set_data(G_OBJECT(button), "allium-angle", GINT_TO_POINTER(vertical[i].value));
            connect_row(button, "clicked", G_CALLBACK(vertical_clicked_cb), row);
            gtk_box_append(GTK_BOX(box), button);
        }
        return box;
    }
    return NULL;
}

/* The value's editor for KEY: a typed one from the entity definitions (make_typed_editor),
 * else an entry, with a colour button for colours; a list of the world's hulls for
 * "hull". */
static GtkWidget *make_editor(AlliumInspector *self, Row *row, const char *value,
                              const al_world *world)
{
    const char *classname = shown_value(self, "classname");
    const al_entdef_property *p =
        classname
            ? al_entdef_find_property(al_entdefs_find(definitions_of(self), classname), row->key)
            : NULL;
    if (g_ascii_strcasecmp(row->key, "classname") != 0 &&
        g_ascii_strcasecmp(row->key, "origin") != 0) {
        GtkWidget *typed = make_typed_editor(self, row, value, p);
        if (typed) {
            if (p && *p->description) gtk_widget_set_tooltip_text(typed, p->description);
            return typed;
        }
    }
    AlliumValueKind kind = allium_value_kind_for(definitions_of(self), classname, row->key);
    if (kind == ALLIUM_VALUE_HULL && world) {
        GtkStringList *names = gtk_string_list_new(NULL);
        guint selected = GTK_INVALID_LIST_POSITION;
        for (int h = 0; h < al_world_hull_count(world); h++) {
            const char *name = al_world_hull(world, h)->name;
            if (g_strcmp0(name, value) == 0) selected = (guint) h;
            gtk_string_list_append(names, name);
        }
        if (selected == GTK_INVALID_LIST_POSITION) {
            /* Not one of the map's hulls: shown as it is, so it can be seen and fixed. */
            gtk_string_list_append(names, value);
            selected = (guint) al_world_hull_count(world);
        }
        GtkWidget *dropdown = gtk_drop_down_new(G_LIST_MODEL(names), NULL);
        gtk_drop_down_set_selected(GTK_DROP_DOWN(dropdown), selected);
        gtk_widget_set_hexpand(dropdown, TRUE);
        connect_row(dropdown, "notify::selected", G_CALLBACK(hull_selected_cb), row);
        row->hulls = GTK_DROP_DOWN(dropdown);
        return dropdown;
    }
    GtkWidget *entry = make_entry(row, value);
    if (kind != ALLIUM_VALUE_COLOUR) return entry;
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
    GdkRGBA c = {1, 1, 1, 1};
    parse_colour(value, &c);
    GtkWidget *button = gtk_color_button_new_with_rgba(&c);
    gtk_color_chooser_set_use_alpha(GTK_COLOR_CHOOSER(button), FALSE);
    connect_row(button, "color-set", G_CALLBACK(colour_set_cb), row);
    row->colour = GTK_COLOR_BUTTON(button);
    gtk_box_append(GTK_BOX(box), entry);
    gtk_box_append(GTK_BOX(box), button);
    (void) self;
    return box;
}

/* Adds KEY's row at grid row AT showing VALUE; ABSENT: a key of CLASSNAME's definition
 * that the entity lacks, VALUE its default (greyed, no remove button; a change adds it). */
static void add_row(AlliumInspector *self, int at, const char *classname, const char *key,
                    const char *value, gboolean absent, const al_world *world)
{
    Row *row = g_new0(Row, 1);
    row->refs = 1; /* the panel's list */
    row->owner = self;
    row->key = g_strdup(key);
    row->absent = absent;
    row->shown = absent ? g_strdup(value) : NULL;
    g_ptr_array_add(self->rows, row);

    GtkWidget *label = gtk_label_new(key);
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_label_set_ellipsize(GTK_LABEL(label), PANGO_ELLIPSIZE_END);
    gtk_label_set_width_chars(GTK_LABEL(label), 8);
    g_autofree char *meaning =
        allium_entity_definitions_key_tooltip(definitions_of(self), classname, key);
    g_autofree char *tooltip = meaning ? g_strdup_printf("%s\n%s", key, meaning) : NULL;
    gtk_widget_set_tooltip_text(label, tooltip ? tooltip : key);
    row->label = label;
    gtk_grid_attach(self->grid, label, 0, at, 1, 1);
    GtkWidget *editor = make_editor(self, row, value, world);
    gtk_grid_attach(self->grid, editor, 1, at, 1, 1);
    if (absent) {
        /* What the editor shows for the default (a number's "0" for ""), left alone, is not
         * written. */
        if (row->entry) {
            g_free(row->shown);
            row->shown = g_strdup(gtk_editable_get_text(row->entry));
        }
        /* Greyed as a hint, not disabled: it is edited like any other row. */
        gtk_widget_add_css_class(label, "dim-label");
        gtk_widget_add_css_class(editor, "dim-label");
        if (!gtk_widget_get_tooltip_text(editor))
            gtk_widget_set_tooltip_text(editor, _("Not set: the entity has the class's default"));
        return;
    }
    /* What the entity cannot lose has no remove button (commit refuses it as well). */
    if (g_ascii_strcasecmp(key, "classname") == 0 ||
        (self->point_entity && g_ascii_strcasecmp(key, "origin") == 0))
        return;
    GtkWidget *remove = gtk_button_new_from_icon_name("list-remove-symbolic");
    gtk_widget_add_css_class(remove, "flat");
    gtk_widget_set_tooltip_text(remove, _("Remove this property"));
    connect_row(remove, "clicked", G_CALLBACK(remove_clicked_cb), row);
    gtk_grid_attach(self->grid, remove, 2, at, 1, 1);
}

static Row *find_row(AlliumInspector *self, const char *key)
{
    for (guint i = 0; i < self->rows->len; i++) {
        Row *row = self->rows->pdata[i];
        if (g_ascii_strcasecmp(row->key, key) == 0) return row;
    }
    return NULL;
}

static void clear_grid(AlliumInspector *self)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->grid))))
        gtk_grid_remove(self->grid, child);
    g_ptr_array_set_size(self->rows, 0);
}

/* Bounds, size and materials of the selected brushes, and whose they are. */
static void describe_brushes(AlliumSnapshot *snap, const gint64 *rows, guint count,
                             GString *text, int *entity)
{
    const al_input *in = &snap->input.input;
    double lo[3] = {G_MAXDOUBLE, G_MAXDOUBLE, G_MAXDOUBLE};
    double hi[3] = {-G_MAXDOUBLE, -G_MAXDOUBLE, -G_MAXDOUBLE};
    g_autoptr(GPtrArray) materials = g_ptr_array_new();
    *entity = -2;
    int faces = 0;
    for (guint i = 0; i < count; i++) {
        int b = allium_snapshot_brush_index(snap, rows[i]);
        if (b < 0) continue;
        const al_brush_desc *brush = &in->brushes[b];
        *entity = *entity == -2 || *entity == brush->entity ? brush->entity : -1;
        double blo[3], bhi[3];
        if (snap->scene && al_scene_brush_bounds(snap->scene, b, blo, bhi))
            for (int k = 0; k < 3; k++) lo[k] = MIN(lo[k], blo[k]), hi[k] = MAX(hi[k], bhi[k]);
        for (int f = 0; f < brush->face_count; f++) {
            int m = in->faces[brush->first_face + f].material;
            const char *name = m >= 0 ? in->materials[m].name : "";
            if (!g_ptr_array_find_with_equal_func(materials, name, g_str_equal, NULL))
                g_ptr_array_add(materials, (gpointer) name);
            faces++;
        }
    }
    if (lo[0] <= hi[0]) {
        g_string_append_printf(text, _("From %g %g %g to %g %g %g\nSize %g × %g × %g"), lo[0],
                               lo[1], lo[2], hi[0], hi[1], hi[2], hi[0] - lo[0], hi[1] - lo[1],
                               hi[2] - lo[2]);
        g_string_append_c(text, '\n');
    }
    g_string_append_printf(text, g_dngettext(GETTEXT_PACKAGE, "%d face", "%d faces", faces),
                           faces);
    g_string_append(text, " · ");
    for (guint i = 0; i < materials->len && i < 8; i++)
        g_string_append_printf(text, "%s%s", i ? ", " : "", (const char *) materials->pdata[i]);
    if (materials->len > 8) g_string_append(text, ", …");
}

/* The selected faces: each one's material and the way it faces (at most a few). */
static void describe_faces(AlliumSnapshot *snap, const AlliumFaceRef *faces, guint count,
                           GString *text)
{
    enum { SHOWN = 6 };
    const al_input *in = &snap->input.input;
    for (guint i = 0; i < count && i < SHOWN; i++) {
        int b = allium_snapshot_brush_index(snap, faces[i].brush);
        if (b < 0 || faces[i].face >= in->brushes[b].face_count) continue;
        const al_face_desc *f = &in->faces[in->brushes[b].first_face + faces[i].face];
        double n[3], d;
        char x[ALLIUM_NUMBER_SIZE], y[ALLIUM_NUMBER_SIZE], z[ALLIUM_NUMBER_SIZE];
        const char *name = f->material >= 0 ? in->materials[f->material].name : "";
        if (i) g_string_append_c(text, '\n');
        if (al_plane_from_points(f->points[0], f->points[1], f->points[2], n, &d))
            g_string_append_printf(text, _("%s, facing %s %s %s"), name,
                                   allium_format_fixed(x, n[0], 2), allium_format_fixed(y, n[1], 2),
                                   allium_format_fixed(z, n[2], 2));
        else
            g_string_append(text, name);
    }
    if (count > SHOWN) g_string_append(text, "\n…");
}

/* One face's texture parameters, as the document stores them. */
/* A Valve 220 face's axes (the texture editor below has the other parameters). */
static void describe_texture(AlliumDocument *document, const AlliumFaceRef *face, GString *text)
{
    al_doc_texture tex;
    al_doc *doc = document ? allium_document_get_doc(document) : NULL;
    if (!doc || al_doc_face_texture(doc, face->brush, face->face, &tex) != AL_OK || !tex.valve)
        return;
    g_string_append_printf(text, _("\nTexture axes U %g %g %g, V %g %g %g"), tex.u_axis[0],
                           tex.u_axis[1], tex.u_axis[2], tex.v_axis[0], tex.v_axis[1],
                           tex.v_axis[2]);
}

static gboolean entity_has_brushes(const al_input *in, int entity)
{
    for (int b = 0; b < in->brush_count; b++)
        if (in->brushes[b].entity == entity) return TRUE;
    return FALSE;
}

/* Works out what to show; rebuilds the panel if it differs from what is shown. */
static void refresh(AlliumInspector *self)
{
    AlliumSnapshot *snap = snapshot_of(self);
    guint brush_count = 0, entity_count = 0;
    const gint64 *brushes = self->selection ? allium_selection_get_brushes(self->selection, &brush_count) : NULL;
    const gint64 *entities = self->selection ? allium_selection_get_entities(self->selection, &entity_count) : NULL;
    guint face_count = 0;
    const AlliumFaceRef *faces =
        self->selection ? allium_selection_get_faces(self->selection, &face_count) : NULL;

    g_autoptr(GString) title = g_string_new(NULL);
    g_autoptr(GString) detail = g_string_new(NULL);
    int entity = -1;
    const char *subject = "none";
    if (!snap) {
        g_string_append(title, _("No map"));
    } else if (face_count > 0) {
        subject = "faces";
        g_string_append_printf(title, g_dngettext(GETTEXT_PACKAGE, "%u face", "%u faces",
                                                  face_count),
                               face_count);
        describe_faces(snap, faces, face_count, detail);
        if (face_count == 1) describe_texture(self->document, faces, detail);
    } else if (brush_count == 0 && entity_count == 1) {
        entity = allium_snapshot_entity_index(snap, entities[0]);
        subject = "entity";
    } else if (brush_count == 0 && entity_count == 0) {
        entity = allium_snapshot_entity_index(snap, allium_document_get_world_entity(self->document));
        subject = "world";
        g_string_append(detail, _("Nothing is selected: the map's own properties."));
    } else if (entity_count == 0) {
        subject = "brushes";
        g_string_append_printf(title, g_dngettext(GETTEXT_PACKAGE, "%u brush", "%u brushes",
                                                  brush_count),
                               brush_count);
        int owner;
        describe_brushes(snap, brushes, brush_count, detail, &owner);
        /* The brushes of one brush entity: its properties below. */
        if (owner > 0) entity = owner;
        else if (owner == 0) g_string_append(detail, _("\nPart of the world"));
    } else {
        g_string_append_printf(title, _("%u brushes and %u entities"), brush_count, entity_count);
        g_string_append(detail, _("Select one entity to edit its properties."));
    }
    const al_input *in = snap ? &snap->input.input : NULL;
    if (entity >= 0) {
        const al_entity_desc *e = &in->entities[entity];
        if (!title->len) g_string_append(title, e->classname ? e->classname : "");
        else g_string_append_printf(detail, _("\nOf a %s"), e->classname ? e->classname : "");
    }

    /* The labels follow every snapshot (a dragged brush's bounds change each frame); the
     * rows are rebuilt only when their fingerprint, everything they show, changes: a
     * rebuild makes dozens of widgets, too slow for every frame of a drag. */
    if (g_strcmp0(gtk_label_get_text(self->title), title->str) != 0)
        gtk_label_set_text(self->title, title->str);
    if (g_strcmp0(gtk_label_get_text(self->detail), detail->str) != 0)
        gtk_label_set_text(self->detail, detail->str);
    gtk_widget_set_visible(GTK_WIDGET(self->detail), detail->len > 0);
    g_autoptr(GString) print = g_string_new(subject);
    g_string_append_c(print, '\n');
    if (entity >= 0) {
        const al_entity_desc *e = &in->entities[entity];
        for (int p = 0; p < e->property_count; p++)
            g_string_append_printf(print, "%s\n%s\n", e->properties[p].key, e->properties[p].value);
    }
    gint64 row = entity >= 0 && snap->input.entity_ids ? snap->input.entity_ids[entity] : -1;
    g_string_append_printf(print, "%" G_GINT64_FORMAT, row);
    /* Other definitions type and explain the keys otherwise. */
    if (snap && snap->definitions) g_string_append_printf(print, "\n%u", snap->definitions->serial);
    if (self->fingerprint && g_str_equal(self->fingerprint, print->str)) return;
    g_free(self->fingerprint);
    self->fingerprint = g_strdup(print->str);

    self->rebuilding = TRUE;
    if (row != self->entity_row) set_message(self, NULL);
    self->entity_row = row;
    self->subject = subject;
    self->point_entity = entity >= 0 && !entity_has_brushes(in, entity);
    clear_grid(self);
    if (entity >= 0) {
        const al_entity_desc *e = &in->entities[entity];
        int at = 0;
        const char *cls = e->classname ? e->classname : "";
        add_row(self, at++, cls, "classname", cls, FALSE, snap->world);
        for (int p = 0; p < e->property_count; p++)
            if (g_ascii_strcasecmp(e->properties[p].key, "classname") != 0)
                add_row(self, at++, cls, e->properties[p].key, e->properties[p].value, FALSE,
                        snap->world);
        /* The keys the class defines and the entity lacks, greyed with their defaults
         * (flags 0 when none is given, so that their check buttons show). */
        const al_entdef_class *def = al_entdefs_find(definitions_of(self), cls);
        for (int p = 0; def && p < def->property_count; p++) {
            const al_entdef_property *prop = &def->properties[p];
            if (!*prop->key || find_row(self, prop->key)) continue;
            /* The world's own keys are many (the light tools' worldspawn settings) and the
             * panel shows them whenever nothing is selected: only its flags are listed. */
            if (entity == 0 && prop->type != AL_PROP_FLAGS) continue;
            const char *value = prop->has_default             ? prop->default_value
                                : prop->type == AL_PROP_FLAGS ? "0"
                                                              : "";
            add_row(self, at++, cls, prop->key, value, TRUE, snap->world);
        }
    }
    gtk_widget_set_visible(self->add_box, entity >= 0);
    self->rebuilding = FALSE;
}

static void compiled_cb(AlliumDocument *document, AlliumInspector *self)
{
    (void) document;
    refresh(self);
}

static void selection_changed_cb(AlliumSelection *selection, AlliumInspector *self)
{
    (void) selection;
    refresh(self);
}

static void add_property(AlliumInspector *self)
{
    g_autofree char *key = g_strstrip(g_strdup(gtk_editable_get_text(self->new_key)));
    const char *value = gtk_editable_get_text(self->new_value);
    if (commit(self, key, value)) {
        gtk_editable_set_text(self->new_key, "");
        gtk_editable_set_text(self->new_value, "");
        gtk_widget_grab_focus(GTK_WIDGET(self->new_key));
    }
}

static void add_clicked_cb(GtkWidget *widget, AlliumInspector *self)
{
    (void) widget;
    add_property(self);
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_inspector_dispose(GObject *object)
{
    AlliumInspector *self = ALLIUM_INSPECTOR(object);
    allium_inspector_set_document(self, NULL);
    allium_inspector_set_selection(self, NULL);
    g_clear_pointer(&self->scroller, gtk_widget_unparent);
    G_OBJECT_CLASS(allium_inspector_parent_class)->dispose(object);
}

static void allium_inspector_finalize(GObject *object)
{
    AlliumInspector *self = ALLIUM_INSPECTOR(object);
    g_ptr_array_unref(self->rows);
    g_free(self->fingerprint);
    G_OBJECT_CLASS(allium_inspector_parent_class)->finalize(object);
}

static void allium_inspector_class_init(AlliumInspectorClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = allium_inspector_dispose;
    G_OBJECT_CLASS(klass)->finalize = allium_inspector_finalize;
    gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "allium-inspector");
}

static void allium_inspector_init(AlliumInspector *self)
{
    self->rows = g_ptr_array_new_with_free_func(row_detach);
    self->subject = "none";
    self->entity_row = -1;

    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8);
    gtk_widget_set_margin_start(box, 10);
    gtk_widget_set_margin_end(box, 10);
    gtk_widget_set_margin_top(box, 10);
    gtk_widget_set_margin_bottom(box, 10);

    self->title = GTK_LABEL(gtk_label_new(_("No map")));
    gtk_label_set_xalign(self->title, 0);
    gtk_widget_add_css_class(GTK_WIDGET(self->title), "heading");
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(self->title));
    self->detail = GTK_LABEL(gtk_label_new(NULL));
    gtk_label_set_xalign(self->detail, 0);
    gtk_label_set_wrap(self->detail, TRUE);
    gtk_label_set_selectable(self->detail, TRUE);
    gtk_widget_add_css_class(GTK_WIDGET(self->detail), "dim-label");
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(self->detail));

    self->grid = GTK_GRID(gtk_grid_new());
    gtk_grid_set_row_spacing(self->grid, 4);
    gtk_grid_set_column_spacing(self->grid, 6);
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(self->grid));

    self->texture_editor = ALLIUM_TEXTURE_EDITOR(allium_texture_editor_new());
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(self->texture_editor));

    self->message = allium_error_label_new();
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(self->message));

    /* A new property: name, value, Add (Enter in the value adds too). */
    self->add_box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
    GtkWidget *key = gtk_entry_new();
    gtk_entry_set_placeholder_text(GTK_ENTRY(key), _("New property"));
    gtk_editable_set_width_chars(GTK_EDITABLE(key), 8);
    GtkWidget *value = gtk_entry_new();
    gtk_entry_set_placeholder_text(GTK_ENTRY(value), _("Value"));
    gtk_editable_set_width_chars(GTK_EDITABLE(value), 8);
    gtk_widget_set_hexpand(value, TRUE);
    g_signal_connect(value, "activate", G_CALLBACK(add_clicked_cb), self);
    GtkWidget *add = gtk_button_new_from_icon_name("list-add-symbolic");
    gtk_widget_set_tooltip_text(add, _("Add the property"));
    g_signal_connect(add, "clicked", G_CALLBACK(add_clicked_cb), self);
    gtk_box_append(GTK_BOX(self->add_box), key);
    gtk_box_append(GTK_BOX(self->add_box), value);
    gtk_box_append(GTK_BOX(self->add_box), add);
    self->new_key = GTK_EDITABLE(key);
    self->new_value = GTK_EDITABLE(value);
    gtk_widget_set_visible(self->add_box, FALSE);
    gtk_box_append(GTK_BOX(box), self->add_box);

    self->scroller = gtk_scrolled_window_new();
    gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(self->scroller), GTK_POLICY_NEVER,
                                   GTK_POLICY_AUTOMATIC);
    gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(self->scroller), box);
    gtk_widget_set_parent(self->scroller, GTK_WIDGET(self));
}

/* --- public API ---------------------------------------------------------------------- */

GtkWidget *allium_inspector_new(void)
{
    return g_object_new(ALLIUM_TYPE_INSPECTOR, NULL);
}

void allium_inspector_set_document(AlliumInspector *self, AlliumDocument *document)
{
    g_return_if_fail(ALLIUM_IS_INSPECTOR(self));
    if (self->document == document) return;
    if (self->document) {
        g_clear_signal_handler(&self->compiled_handler, self->document);
        g_clear_object(&self->document);
    }
    if (document) {
        self->document = g_object_ref(document);
        self->compiled_handler = g_signal_connect(document, "compiled", G_CALLBACK(compiled_cb), self);
    }
    allium_texture_editor_set_document(self->texture_editor, document);
    refresh(self);
}

void allium_inspector_set_selection(AlliumInspector *self, AlliumSelection *selection)
{
    g_return_if_fail(ALLIUM_IS_INSPECTOR(self));
    if (self->selection == selection) return;
    if (self->selection) {
        g_clear_signal_handler(&self->selection_handler, self->selection);
        g_clear_object(&self->selection);
    }
    if (selection) {
        self->selection = g_object_ref(selection);
        self->selection_handler =
            g_signal_connect(selection, "changed", G_CALLBACK(selection_changed_cb), self);
    }
    allium_texture_editor_set_selection(self->texture_editor, selection);
    refresh(self);
}

const char *allium_inspector_get_value(AlliumInspector *self, const char *key)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), NULL);
    Row *row = find_row(self, key);
    if (!row) return NULL;
    if (row->entry) return gtk_editable_get_text(row->entry);
    if (row->choices) {
        guint i = gtk_drop_down_get_selected(row->choices);
        return i < g_strv_length(row->choice_values) ? row->choice_values[i] : NULL;
    }
    if (!row->hulls) return shown_value(self, key);
    GtkStringObject *item = gtk_drop_down_get_selected_item(row->hulls);
    return item ? gtk_string_object_get_string(item) : NULL;
}

const char *allium_inspector_get_key_tooltip(AlliumInspector *self, const char *key)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), NULL);
    Row *row = find_row(self, key);
    return row ? gtk_widget_get_tooltip_text(row->label) : NULL;
}

AlliumAngleDial *allium_inspector_get_angle_dial(AlliumInspector *self, const char *key)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), NULL);
    Row *row = find_row(self, key);
    return row ? row->dial : NULL;
}

GtkButton *allium_inspector_get_vertical_button(AlliumInspector *self, const char *key, int angle)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), NULL);
    Row *row = find_row(self, key);
    if (!row || !row->dial || row->dial_index >= 0) return NULL;
    for (GtkWidget *w = gtk_widget_get_first_child(gtk_widget_get_parent(GTK_WIDGET(row->dial))); w;
         w = gtk_widget_get_next_sibling(w))
        if (GTK_IS_BUTTON(w) &&
            GPOINTER_TO_INT(g_object_get_data(G_OBJECT(w), "allium-angle")) == angle)
            return GTK_BUTTON(w);
    return NULL;
}

gboolean allium_inspector_is_absent(AlliumInspector *self, const char *key)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), FALSE);
    Row *row = find_row(self, key);
    return row && row->absent;
}

GtkWidget *allium_inspector_get_editor(AlliumInspector *self, const char *key)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), NULL);
    Row *row = find_row(self, key);
    if (!row) return NULL;
    if (row->entry) return GTK_WIDGET(row->entry);
    if (row->choices) return GTK_WIDGET(row->choices);
    if (row->vector[0]) return gtk_widget_get_parent(GTK_WIDGET(row->vector[0]));
    return GTK_WIDGET(row->hulls);
}

GtkCheckButton *allium_inspector_get_flag_button(AlliumInspector *self, const char *key,
                                                 unsigned bit)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), NULL);
    Row *row = find_row(self, key);
    for (int i = 0; row && i < row->flag_count; i++)
        if (row->flag_bits[i] == bit) return row->flags[i];
    return NULL;
}

GtkDropDown *allium_inspector_get_name_list(AlliumInspector *self, const char *key)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), NULL);
    Row *row = find_row(self, key);
    return row ? row->names : NULL;
}

gboolean allium_inspector_edit(AlliumInspector *self, const char *key, const char *value)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), FALSE);
    Row *row = find_row(self, key);
    if (!row) {
        if (!value) return FALSE;
        gtk_editable_set_text(self->new_key, key);
        gtk_editable_set_text(self->new_value, value);
        add_property(self);
        return *gtk_editable_get_text(self->new_key) == '\0'; /* cleared when added */
    }
    if (!value) return commit(self, key, NULL);
    if (!row->entry) return commit(self, key, value);
    gtk_editable_set_text(row->entry, value);
    return row_commit(row);
}

const char *allium_inspector_get_message(AlliumInspector *self)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), "");
    return gtk_label_get_text(self->message);
}

AlliumTextureEditor *allium_inspector_get_texture_editor(AlliumInspector *self)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), NULL);
    return self->texture_editor;
}

const char *allium_inspector_get_subject(AlliumInspector *self)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), "none");
    return self->subject;
}

const char *allium_inspector_get_detail(AlliumInspector *self)
{
    g_return_val_if_fail(ALLIUM_IS_INSPECTOR(self), "");
    return gtk_label_get_text(self->detail);
}
