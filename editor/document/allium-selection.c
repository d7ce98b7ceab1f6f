/* AlliumSelection (see allium-selection.h).
 *
 * Workload: a handful to a few thousand rows, changed per click; a linear search is
 * cheaper than keeping a hash table in step. */
#include "allium-config.h"

#include "allium-selection.h"

#include <string.h>

#include <stdlib.h>

struct _AlliumSelection {
    GObject parent_instance;

    /* owned references */
    GArray *brushes;  /* gint64 row ids */
    GArray *entities; /* gint64 row ids */
    GArray *faces;    /* AlliumFaceRef; never together with brushes or entities */
    guint64 serial;
    GArray *guides;   /* double[3] point pairs */
    GHashTable *hidden; /* gint64 row ids of the hidden brushes (a set) */
    GHashTable *locked; /* gint64 row ids of the locked brushes (a set) */
    GHashTable *hidden_entities; /* gint64 entity rows hidden (a set) */
    GHashTable *locked_entities; /* gint64 entity rows locked (a set) */
    GHashTable *tints;           /* gint64 brush row -> its layer's colour, 0xRRGGBBAA */
    guint64 guides_until;
    gboolean has_pivot; /* the rotation centre the designer placed */
    double pivot[3];
};

G_DEFINE_TYPE(AlliumSelection, allium_selection, G_TYPE_OBJECT)

enum { SIGNAL_CHANGED, SIGNAL_GUIDES_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* --- static helpers ------------------------------------------------------------------ */

static int find_row(GArray *rows, gint64 row)
{
    for (guint i = 0; i < rows->len; i++)
        if (g_array_index(rows, gint64, i) == row) return (int) i;
    return -1;
}

static void emit_changed(AlliumSelection *self)
{
    self->serial++;
    self->has_pivot = FALSE; /* a rotation centre belongs to the selection it was placed for */
    g_signal_emit(self, signals[SIGNAL_CHANGED], 0);
}

/* Selects ROW in ROWS (OTHER, the other kind, is emptied on a replace). Selecting a brush
 * or an entity ends a selection of faces. */
static void select_row(AlliumSelection *self, GArray *rows, GArray *other, gint64 row,
                       AlliumSelectMode mode)
{
    g_array_set_size(self->faces, 0);
    int at = find_row(rows, row);
    if (mode == ALLIUM_SELECT_REPLACE) {
        if (at >= 0 && rows->len == 1 && other->len == 0) return; /* no change */
        g_array_set_size(rows, 0);
        g_array_set_size(other, 0);
        g_array_append_val(rows, row);
    } else if (at >= 0) {
        g_array_remove_index(rows, (guint) at);
    } else {
        g_array_append_val(rows, row);
    }
    emit_changed(self);
}

/* --- overrides ----------------------------------------------------------------------- */

static void allium_selection_finalize(GObject *object)
{
    AlliumSelection *self = ALLIUM_SELECTION(object);
    g_array_unref(self->brushes);
    g_array_unref(self->entities);
    g_array_unref(self->faces);
    g_array_unref(self->guides);
    g_hash_table_unref(self->hidden);
    g_hash_table_unref(self->locked);
    g_hash_table_unref(self->hidden_entities);
    g_hash_table_unref(self->locked_entities);
    g_hash_table_unref(self->tints);
    G_OBJECT_CLASS(allium_selection_parent_class)->finalize(object);
}

/* --- class_init and init ------------------------------------------------------------- */

static void allium_selection_class_init(AlliumSelectionClass *klass)
{
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->finalize = allium_selection_finalize;

    signals[SIGNAL_CHANGED] = g_signal_new("changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
    signals[SIGNAL_GUIDES_CHANGED] = g_signal_new("guides-changed", G_TYPE_FROM_CLASS(klass),
                                                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                                  G_TYPE_NONE, 0);
}

static void allium_selection_init(AlliumSelection *self)
{
    self->brushes = g_array_new(FALSE, FALSE, sizeof(gint64));
    self->entities = g_array_new(FALSE, FALSE, sizeof(gint64));
    self->faces = g_array_new(FALSE, FALSE, sizeof(AlliumFaceRef));
    self->guides = g_array_new(FALSE, FALSE, sizeof(double[3]));
    self->hidden = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    self->locked = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    self->hidden_entities = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    self->locked_entities = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    self->tints = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
}

/* --- public API ---------------------------------------------------------------------- */

AlliumSelection *allium_selection_new(void)
{
    return g_object_new(ALLIUM_TYPE_SELECTION, NULL);
}

void allium_selection_clear(AlliumSelection *self)
{
    g_return_if_fail(ALLIUM_IS_SELECTION(self));
    if (allium_selection_is_empty(self)) return;
    g_array_set_size(self->brushes, 0);
    g_array_set_size(self->entities, 0);
    g_array_set_size(self->faces, 0);
    emit_changed(self);
}

void allium_selection_select_brush(AlliumSelection *self, gint64 brush, AlliumSelectMode mode)
{
    g_return_if_fail(ALLIUM_IS_SELECTION(self));
    select_row(self, self->brushes, self->entities, brush, mode);
}

void allium_selection_select_entity(AlliumSelection *self, gint64 entity, AlliumSelectMode mode)
{
    g_return_if_fail(ALLIUM_IS_SELECTION(self));
    select_row(self, self->entities, self->brushes, entity, mode);
}

gboolean allium_selection_has_brush(AlliumSelection *self, gint64 brush)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), FALSE);
    return find_row(self->brushes, brush) >= 0;
}

gboolean allium_selection_is_empty(AlliumSelection *self)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), TRUE);
    return self->brushes->len == 0 && self->entities->len == 0 && self->faces->len == 0;
}

const gint64 *allium_selection_get_brushes(AlliumSelection *self, guint *count)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), NULL);
    *count = self->brushes->len;
    return (const gint64 *) (gpointer) self->brushes->data;
}

const gint64 *allium_selection_get_entities(AlliumSelection *self, guint *count)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), NULL);
    *count = self->entities->len;
    return (const gint64 *) (gpointer) self->entities->data;
}

guint64 allium_selection_get_serial(AlliumSelection *self)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), 0);
    return self->serial;
}

void allium_selection_select_brushes(AlliumSelection *self, const gint64 *rows, guint count,
                                     AlliumSelectMode mode)
{
    g_return_if_fail(ALLIUM_IS_SELECTION(self));
    g_array_set_size(self->faces, 0);
    if (mode == ALLIUM_SELECT_REPLACE) {
        g_array_set_size(self->brushes, 0);
        g_array_set_size(self->entities, 0);
    }
    for (guint i = 0; i < count; i++)
        if (find_row(self->brushes, rows[i]) < 0) g_array_append_val(self->brushes, rows[i]);
    emit_changed(self);
}

gboolean allium_selection_has_entity(AlliumSelection *self, gint64 entity)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), FALSE);
    return find_row(self->entities, entity) >= 0;
}

void allium_selection_set_guides(AlliumSelection *self, const double (*points)[3], guint count,
                                 guint64 until)
{
    g_return_if_fail(ALLIUM_IS_SELECTION(self));
    if (self->guides->len == 0 && (!points || count == 0)) return;
    g_array_set_size(self->guides, 0);
    if (points && count) g_array_append_vals(self->guides, points, count & ~1u);
    self->guides_until = until;
    g_signal_emit(self, signals[SIGNAL_GUIDES_CHANGED], 0);
}

void allium_selection_set_pivot(AlliumSelection *self, const double point[3])
{
    g_return_if_fail(ALLIUM_IS_SELECTION(self));
    if (!point && !self->has_pivot) return;
    self->has_pivot = point != NULL;
    if (point) memcpy(self->pivot, point, sizeof self->pivot);
    g_signal_emit(self, signals[SIGNAL_GUIDES_CHANGED], 0);
}

gboolean allium_selection_get_pivot(AlliumSelection *self, double point[3])
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), FALSE);
    if (self->has_pivot) memcpy(point, self->pivot, sizeof self->pivot);
    return self->has_pivot;
}

const double (*allium_selection_get_guides(AlliumSelection *self, guint *count))[3]
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), NULL);
    *count = self->guides->len;
    return (const double(*)[3]) (gpointer) self->guides->data;
}

void allium_selection_snapshot_arrived(AlliumSelection *self, guint64 generation)
{
    g_return_if_fail(ALLIUM_IS_SELECTION(self));
    if (self->guides_until && self->guides_until <= generation)
        allium_selection_set_guides(self, NULL, 0, 0);
}

void allium_selection_set_items(AlliumSelection *self, const gint64 *brushes, guint brush_count,
                                const gint64 *entities, guint entity_count)
{
    g_return_if_fail(ALLIUM_IS_SELECTION(self));
    g_array_set_size(self->faces, 0);
    g_array_set_size(self->brushes, 0);
    g_array_set_size(self->entities, 0);
    for (guint i = 0; i < brush_count; i++)
        if (find_row(self->brushes, brushes[i]) < 0) g_array_append_val(self->brushes, brushes[i]);
    for (guint i = 0; i < entity_count; i++)
        if (find_row(self->entities, entities[i]) < 0)
            g_array_append_val(self->entities, entities[i]);
    emit_changed(self);
}

void allium_selection_select_face(AlliumSelection *self, gint64 brush, int face,
                                  AlliumSelectMode mode)
{
    g_return_if_fail(ALLIUM_IS_SELECTION(self));
    g_array_set_size(self->brushes, 0);
    g_array_set_size(self->entities, 0);
    int at = -1;
    for (guint i = 0; i < self->faces->len && at < 0; i++) {
        const AlliumFaceRef *f = &g_array_index(self->faces, AlliumFaceRef, i);
        if (f->brush == brush && f->face == face) at = (int) i;
    }
    AlliumFaceRef ref = {brush, face};
    if (mode == ALLIUM_SELECT_REPLACE) {
        g_array_set_size(self->faces, 0);
        g_array_append_val(self->faces, ref);
    } else if (at >= 0) {
        g_array_remove_index(self->faces, (guint) at);
    } else {
        g_array_append_val(self->faces, ref);
    }
    emit_changed(self);
}

const AlliumFaceRef *allium_selection_get_faces(AlliumSelection *self, guint *count)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), NULL);
    *count = self->faces->len;
    return (const AlliumFaceRef *) (gpointer) self->faces->data;
}

void allium_selection_set_faces(AlliumSelection *self, const AlliumFaceRef *faces, guint count)
{
    g_return_if_fail(ALLIUM_IS_SELECTION(self));
    g_array_set_size(self->brushes, 0);
    g_array_set_size(self->entities, 0);
    g_array_set_size(self->faces, 0);
    g_array_append_vals(self->faces, faces, count);
    emit_changed(self);
}

/* Whether SET holds exactly ROWS (COUNT, maybe repeated). */
static gboolean same_set(GHashTable *set, const gint64 *rows, guint count)
{
    for (guint i = 0; i < count; i++)
        if (!g_hash_table_contains(set, &rows[i])) return FALSE;
    g_autoptr(GHashTable) given = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < count; i++) g_hash_table_add(given, (gpointer) &rows[i]);
    return g_hash_table_size(given) == g_hash_table_size(set);
}

static void fill_set(GHashTable *set, const gint64 *rows, guint count)
{
    g_hash_table_remove_all(set);
    for (guint i = 0; i < count; i++)
        if (!g_hash_table_contains(set, &rows[i]))
            g_hash_table_add(set, g_memdup2(&rows[i], sizeof rows[i]));
}

/* Whether the tints are those of MARKS. */
static gboolean same_tints(GHashTable *tints, const AlliumMarks *marks)
{
    if (g_hash_table_size(tints) != marks->tinted_count) return FALSE;
    for (guint i = 0; i < marks->tinted_count; i++) {
        gpointer value;
        if (!g_hash_table_lookup_extended(tints, &marks->tinted[i], NULL, &value) ||
            GPOINTER_TO_UINT(value) != marks->tints[i])
            return FALSE;
    }
    return TRUE;
}

void allium_selection_set_marks(AlliumSelection *self, const AlliumMarks *marks)
{
    g_return_if_fail(ALLIUM_IS_SELECTION(self));
    static const AlliumMarks none = {0};
    if (!marks) marks = &none;
    if (same_set(self->hidden, marks->hidden, marks->hidden_count) &&
        same_set(self->locked, marks->locked, marks->locked_count) &&
        same_set(self->hidden_entities, marks->hidden_entities, marks->hidden_entity_count) &&
        same_set(self->locked_entities, marks->locked_entities, marks->locked_entity_count) &&
        same_tints(self->tints, marks))
        return;
    g_hash_table_remove_all(self->tints);
    for (guint i = 0; i < marks->tinted_count; i++)
        g_hash_table_insert(self->tints, g_memdup2(&marks->tinted[i], sizeof(gint64)),
                            GUINT_TO_POINTER(marks->tints[i]));
    fill_set(self->hidden, marks->hidden, marks->hidden_count);
    fill_set(self->locked, marks->locked, marks->locked_count);
    fill_set(self->hidden_entities, marks->hidden_entities, marks->hidden_entity_count);
    fill_set(self->locked_entities, marks->locked_entities, marks->locked_entity_count);
    for (guint i = self->entities->len; i-- > 0;)
        if (!allium_selection_is_entity_pickable(self, g_array_index(self->entities, gint64, i)))
            g_array_remove_index(self->entities, i);
    for (guint i = self->brushes->len; i-- > 0;)
        if (!allium_selection_is_pickable(self, g_array_index(self->brushes, gint64, i)))
            g_array_remove_index(self->brushes, i);
    for (guint i = self->faces->len; i-- > 0;)
        if (!allium_selection_is_pickable(self, g_array_index(self->faces, AlliumFaceRef, i).brush))
            g_array_remove_index(self->faces, i);
    emit_changed(self);
}

gboolean allium_selection_is_locked(AlliumSelection *self, gint64 brush)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), FALSE);
    return g_hash_table_contains(self->locked, &brush);
}

gboolean allium_selection_is_pickable(AlliumSelection *self, gint64 brush)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), FALSE);
    return !g_hash_table_contains(self->hidden, &brush) &&
           !g_hash_table_contains(self->locked, &brush);
}

gboolean allium_selection_is_hidden(AlliumSelection *self, gint64 brush)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), FALSE);
    return g_hash_table_contains(self->hidden, &brush);
}

gboolean allium_selection_is_entity_hidden(AlliumSelection *self, gint64 entity)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), FALSE);
    return g_hash_table_contains(self->hidden_entities, &entity);
}

gboolean allium_selection_is_entity_pickable(AlliumSelection *self, gint64 entity)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), FALSE);
    return !g_hash_table_contains(self->hidden_entities, &entity) &&
           !g_hash_table_contains(self->locked_entities, &entity);
}

guint allium_selection_get_hidden_entity_count(AlliumSelection *self)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), 0);
    return g_hash_table_size(self->hidden_entities);
}

guint allium_selection_get_locked_count(AlliumSelection *self)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), 0);
    return g_hash_table_size(self->locked) + g_hash_table_size(self->locked_entities);
}

guint32 allium_selection_get_tint(AlliumSelection *self, gint64 brush)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), 0);
    return GPOINTER_TO_UINT(g_hash_table_lookup(self->tints, &brush));
}

guint allium_selection_get_tint_count(AlliumSelection *self)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), 0);
    return g_hash_table_size(self->tints);
}

guint allium_selection_get_hidden_count(AlliumSelection *self)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), 0);
    return g_hash_table_size(self->hidden);
}

static int compare_rows(gconstpointer a, gconstpointer b)
{
    gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
    return (x > y) - (x < y);
}

gint64 *allium_selection_dup_hidden(AlliumSelection *self, guint *count)
{
    g_return_val_if_fail(ALLIUM_IS_SELECTION(self), NULL);
    *count = g_hash_table_size(self->hidden);
    if (*count == 0) return NULL;
    gint64 *rows = g_new(gint64, *count);
    GHashTableIter it;
    gpointer key;
    guint n = 0;
    g_hash_table_iter_init(&it, self->hidden);
    while (g_hash_table_iter_next(&it, &key, NULL)) rows[n++] = *(const gint64 *) key;
    qsort(rows, n, sizeof *rows, compare_rows);
    return rows;
}
