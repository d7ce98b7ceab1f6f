/* The vertex tool of a view (C): corners, edges and faces of the selected brushes as
 * handles, selected and dragged on the grid.
 *
 * Every view shows the selected brushes' corners (white squares), the middles of their
 * edges (smaller, cyan) and the centres of their faces (smaller, yellow); selected handles
 * are magenta. A click on a handle selects it, Shift + click adds or removes it, and a
 * rectangle in a 2D view that starts off the handles selects those inside (Shift or Ctrl:
 * adds them). A drag that starts on a handle moves what it stands for (a corner; an
 * edge's two corners; a face's corners), and with it every selected handle when it is one
 * of them, in the view's plane, in the 3D view horizontally at the handle's height (hold
 * Alt during the drag to move along Z instead). A corner lands on the grid; an edge or a
 * face moves by whole grid steps. Ctrl + drag of an edge's or a face's handle splits it:
 * a new corner, on the grid, where the pointer takes it (the brush becomes the hull of its
 * corners and the new one), which is then the one selected. Each step of the
 * drag is compiled as a preview (allium_document_preview_vertices); a step that would make
 * a brush concave or flat is not shown, the header says why, and releasing there leaves
 * the brushes as they were with the reason in the status bar. Releasing elsewhere writes
 * one undoable step; Escape restores. Corners of several selected brushes that meet move
 * together. Where handles overlap on the screen the corner wins over an edge, an edge over
 * a face, and the one nearest the camera over those behind it.
 *
 * Handles are read from the document (al_vertex_geometry of each selected brush) when the
 * selection or the document changes; at most MAX_BRUSHES brushes show them.
 */
#include "allium-config.h"

#include "allium-view-private.h"

#include "allium-format.h"
#include "allium-preferences.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

/* More selected brushes than this show no handles (a whole map selected). */
#define MAX_BRUSHES 256
/* The half size of a corner's square and of an edge's or face's, in pixels. */
#define CORNER_RADIUS 4.0
#define SMALL_RADIUS  2.5

/* Corner I of an array of double[3]. */
static const double *corner_at(GArray *corners, guint i)
{
    return (const double *) (gpointer) corners->data + 3 * (gsize) i;
}

static double grid_size(void)
{
    return allium_preferences_get_grid_size(allium_preferences_get_default());
}

static int corner_index(GArray *corners, const double p[3])
{
    for (guint i = 0; i < corners->len; i++) {
        const double *c = corner_at(corners, i);
        if (fabs(c[0] - p[0]) <= AL_VERTEX_MERGE && fabs(c[1] - p[1]) <= AL_VERTEX_MERGE &&
            fabs(c[2] - p[2]) <= AL_VERTEX_MERGE)
            return (int) i;
    }
    g_array_append_vals(corners, p, 1);
    return (int) corners->len - 1;
}

/* A handle at the middle of the COUNT corners IDX of G. */
static void add_handle(AlliumView *self, int kind, const al_vertex_geometry *g, const int *idx,
                       int count)
{
    AlliumVertexHandle h = {.kind = kind, .first = (int) self->vertex_corners->len, .count = count};
    for (int i = 0; i < count; i++) {
        const double *v = g->vertices[idx[i]];
        g_array_append_vals(self->vertex_corners, v, 1);
        for (int k = 0; k < 3; k++) h.point[k] += v[k] / count;
    }
    /* The same handle of a brush beside it (a shared corner or edge) is one handle. */
    for (guint i = 0; i < self->vertex_handles->len; i++) {
        AlliumVertexHandle *o = &g_array_index(self->vertex_handles, AlliumVertexHandle, i);
        if (o->kind == kind && o->count == count &&
            fabs(o->point[0] - h.point[0]) <= AL_VERTEX_MERGE &&
            fabs(o->point[1] - h.point[1]) <= AL_VERTEX_MERGE &&
            fabs(o->point[2] - h.point[2]) <= AL_VERTEX_MERGE) {
            g_array_set_size(self->vertex_corners, (guint) h.first);
            return;
        }
    }
    g_array_append_val(self->vertex_handles, h);
}

static gboolean same_handle(const AlliumVertexHandle *a, int kind, const double p[3])
{
    return a->kind == kind && fabs(a->point[0] - p[0]) <= AL_VERTEX_MERGE &&
           fabs(a->point[1] - p[1]) <= AL_VERTEX_MERGE &&
           fabs(a->point[2] - p[2]) <= AL_VERTEX_MERGE;
}

/* The index in ARRAY (of AlliumVertexHandle) of the handle of KIND at P, or -1. */
static int find_handle(GArray *array, int kind, const double p[3])
{
    for (guint i = 0; array && i < array->len; i++)
        if (same_handle(&g_array_index(array, AlliumVertexHandle, i), kind, p)) return (int) i;
    return -1;
}

static gboolean is_selected(AlliumView *self, const AlliumVertexHandle *h)
{
    return find_handle(self->vertex_selected, h->kind, h->point) >= 0;
}

/* Adds the handle of KIND at P to the selected ones, or (TOGGLE) removes it if it is. */
static void select_handle(AlliumView *self, int kind, const double p[3], gboolean toggle)
{
    int at = find_handle(self->vertex_selected, kind, p);
    if (at >= 0) {
        if (toggle) g_array_remove_index(self->vertex_selected, (guint) at);
        return;
    }
    AlliumVertexHandle h = {.kind = kind};
    memcpy(h.point, p, sizeof h.point);
    g_array_append_val(self->vertex_selected, h);
}

/* The handles of the selected brushes as the document holds them now. */
static void refresh_handles(AlliumView *self)
{
    if (!self->vertex_handles) {
        self->vertex_handles = g_array_new(FALSE, FALSE, sizeof(AlliumVertexHandle));
        self->vertex_corners = g_array_new(FALSE, FALSE, sizeof(double[3]));
        self->vertex_selected = g_array_new(FALSE, FALSE, sizeof(AlliumVertexHandle));
    }
    if (!self->document || !self->selection) {
        g_array_set_size(self->vertex_handles, 0);
        return;
    }
    guint64 generation = allium_document_get_generation(self->document),
            serial = allium_selection_get_serial(self->selection);
    if (generation == self->vertex_generation && serial == self->vertex_serial) return;
    /* Other brushes: other handles. */
    if (serial != self->vertex_serial) g_array_set_size(self->vertex_selected, 0);
    self->vertex_generation = generation;
    self->vertex_serial = serial;
    g_array_set_size(self->vertex_handles, 0);
    g_array_set_size(self->vertex_corners, 0);
    guint nb;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    if (nb > MAX_BRUSHES) return;
    g_autofree al_vertex_geometry *g = g_new(al_vertex_geometry, 1);
    for (guint b = 0; b < nb; b++) {
        if (!allium_document_brush_geometry(self->document, brushes[b], g)) continue;
        for (int v = 0; v < g->vertex_count; v++) add_handle(self, 0, g, &v, 1);
        for (int e = 0; e < g->edge_count; e++) add_handle(self, 1, g, g->edges[e], 2);
        for (int f = 0; f < g->face_count; f++)
            add_handle(self, 2, g, &g->face_points[g->face_first[f]],
                       g->face_first[f + 1] - g->face_first[f]);
    }
}

static const AlliumVertexHandle *dragged(AlliumView *self)
{
    return &g_array_index(self->vertex_handles, AlliumVertexHandle, self->vertex_handle);
}

/* The corners the drag moves, deduplicated (a corner the tool knows once): the dragged
 * handle's, and when it is selected those of every selected handle; for a split, the
 * point split (the handle's). */
static GArray *dragged_corners(AlliumView *self)
{
    const AlliumVertexHandle *h = dragged(self);
    GArray *out = g_array_new(FALSE, FALSE, sizeof(double[3]));
    if (self->vertex_split) {
        g_array_append_vals(out, h->point, 1);
        return out;
    }
    for (int i = 0; i < h->count; i++)
        corner_index(out, corner_at(self->vertex_corners, (guint) (h->first + i)));
    if (!self->vertex_drag_selected) return out;
    for (guint s = 0; s < self->vertex_selected->len; s++) {
        const AlliumVertexHandle *sel =
            &g_array_index(self->vertex_selected, AlliumVertexHandle, s);
        int at = find_handle(self->vertex_handles, sel->kind, sel->point);
        if (at < 0) continue;
        const AlliumVertexHandle *o = &g_array_index(self->vertex_handles, AlliumVertexHandle, at);
        for (int i = 0; i < o->count; i++)
            corner_index(out, corner_at(self->vertex_corners, (guint) (o->first + i)));
    }
    return out;
}

/* The handle under widget point (X, Y): corners before edges before faces; then the nearer
 * on the screen (whole pixels, so that handles drawn on one another tie), then the nearer
 * the camera. -1 when none is within reach. */
static int handle_under(AlliumView *self, double x, double y)
{
    refresh_handles(self);
    double scale = allium_view_scale(self), f[3], r[3], u[3];
    al_camera_basis(&self->camera, f, r, u);
    int best = -1;
    double best_key[3] = {0, 0, 0};
    for (guint i = 0; i < self->vertex_handles->len; i++) {
        const AlliumVertexHandle *h = &g_array_index(self->vertex_handles, AlliumVertexHandle, i);
        double px, py;
        if (!al_camera_project(&self->camera, h->point, &px, &py)) continue;
        double dx = px / scale - x, dy = py / scale - y;
        if (fabs(dx) > HANDLE_REACH || fabs(dy) > HANDLE_REACH) continue;
        double depth = 0;
        for (int k = 0; k < 3; k++) depth += (h->point[k] - self->camera.position[k]) * f[k];
        double key[3] = {h->kind, floor(sqrt(dx * dx + dy * dy)), depth};
        gboolean better = best < 0;
        for (int k = 0; k < 3 && !better; k++) {
            if (key[k] < best_key[k]) better = TRUE;
            if (key[k] != best_key[k]) break;
        }
        if (better) best = (int) i, memcpy(best_key, key, sizeof key);
    }
    return best;
}

/* After a drag's edit: the selected handles follow what moved (those that no longer
 * exist are dropped when they are not found); a dragged handle that was not selected
 * becomes the selection, and a split's new corner does. */
static void follow_drag(AlliumView *self, const double delta[3])
{
    const AlliumVertexHandle *h = dragged(self);
    double p[3];
    for (int k = 0; k < 3; k++) p[k] = h->point[k] + delta[k];
    int kind = self->vertex_split ? 0 : h->kind;
    if (self->vertex_split || !self->vertex_drag_selected) {
        g_array_set_size(self->vertex_selected, 0);
        select_handle(self, kind, p, FALSE);
        return;
    }
    for (guint s = 0; s < self->vertex_selected->len; s++) {
        AlliumVertexHandle *sel = &g_array_index(self->vertex_selected, AlliumVertexHandle, s);
        for (int k = 0; k < 3; k++) sel->point[k] += delta[k];
    }
}

/* --- internal API (allium-view-private.h) ------------------------------------------ */

void allium_view_vertex_append_handles(AlliumView *self, GArray *points, GArray *colours)
{
    static const guint8 white[4] = {235, 235, 235, 255}, cyan[4] = {80, 220, 235, 255},
                        yellow[4] = {240, 220, 60, 255}, amber[4] = {255, 150, 30, 255},
                        red[4] = {235, 60, 50, 255}, magenta[4] = {240, 70, 230, 255};
    if (!self->document || allium_document_get_read_only(self->document) || self->walker) return;
    if (self->edit == EDIT_VERTEX) {
        /* The corners being moved, where they go (red where the move is refused). */
        g_autoptr(GArray) moved = dragged_corners(self);
        for (guint i = 0; i < moved->len; i++) {
            double p[3];
            for (int k = 0; k < 3; k++) p[k] = corner_at(moved, i)[k] + self->vertex_delta[k];
            allium_view_append_handle_square(self, p, CORNER_RADIUS,
                                             self->vertex_refused ? red : amber, points, colours);
        }
        return;
    }
    refresh_handles(self);
    for (guint i = 0; i < self->vertex_handles->len; i++) {
        const AlliumVertexHandle *h = &g_array_index(self->vertex_handles, AlliumVertexHandle, i);
        gboolean selected = is_selected(self, h);
        allium_view_append_handle_square(self, h->point,
                                         h->kind == 0 || selected ? CORNER_RADIUS : SMALL_RADIUS,
                                         selected       ? magenta
                                         : h->kind == 0 ? white
                                         : h->kind == 1 ? cyan
                                                        : yellow,
                                         points, colours);
    }
}

gboolean allium_view_vertex_begin(AlliumView *self, double x, double y, GdkModifierType state)
{
    int best = handle_under(self, x, y);
    if (best < 0) return FALSE;
    self->vertex_handle = best;
    const AlliumVertexHandle *h = dragged(self);
    /* Ctrl on an edge or a face splits it; a selected handle takes the others along. */
    self->vertex_split = (state & GDK_CONTROL_MASK) && h->kind != 0;
    self->vertex_drag_selected = !self->vertex_split && is_selected(self, h);
    /* The drag plane: the view's in 2D, horizontal through the handle in 3D. */
    int axis = 2;
    if (self->kind != AL_VIEW_3D) {
        int ra, ua;
        al_view_axes(self->kind, &ra, &ua, &axis);
    }
    self->edit_axis = axis;
    self->edit_plane = h->point[axis];
    memset(self->vertex_delta, 0, sizeof self->vertex_delta);
    self->vertex_refused = FALSE;
    self->edit = EDIT_VERTEX;
    return TRUE;
}

void allium_view_vertex_update(AlliumView *self, const double point[3])
{
    const AlliumVertexHandle *h = dragged(self);
    double grid = grid_size(), delta[3];
    /* A corner (and a split's new one) lands on the grid; an edge or a face moves by
     * whole steps. Across the drag plane it moves only in 3D with Alt (the rise). */
    gboolean on_grid = h->kind == 0 || self->vertex_split;
    for (int k = 0; k < 3; k++) {
        double raw = k == self->edit_axis ? self->edit_rise : point[k] - self->edit_from[k];
        if (k == self->edit_axis && raw == 0) {
            delta[k] = 0;
            continue;
        }
        delta[k] = on_grid ? al_snap(h->point[k] + raw, grid) - h->point[k] : al_snap(raw, grid);
    }
    if (memcmp(delta, self->vertex_delta, sizeof delta) == 0 &&
        (self->previewing || self->vertex_refused ||
         (delta[0] == 0 && delta[1] == 0 && delta[2] == 0)))
        return;
    memcpy(self->vertex_delta, delta, sizeof delta);
    self->vertex_refused = FALSE;
    char x[ALLIUM_NUMBER_SIZE], y[ALLIUM_NUMBER_SIZE], z[ALLIUM_NUMBER_SIZE];
    const char *what = self->vertex_split ? _("Add corner")
                       : h->kind == 0     ? _("Move corner")
                       : h->kind == 1     ? _("Move edge")
                                          : _("Move face");
    if (delta[0] == 0 && delta[1] == 0 && delta[2] == 0) {
        if (self->previewing) {
            self->previewing = FALSE;
            allium_document_preview_end(self->document);
        }
        g_autofree char *text = g_strdup_printf("%s 0 0 0", what);
        g_strlcpy(self->tool_info, text, sizeof self->tool_info);
        allium_view_show_info(self, self->tool_info);
        allium_view_queue_render(self);
        return;
    }
    guint nb;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    g_autoptr(GArray) from = dragged_corners(self);
    g_autofree char *why = NULL;
    g_autofree char *text = NULL;
    if (allium_document_preview_vertices(self->document, brushes, nb,
                                         (const double(*)[3])(gpointer) from->data, from->len,
                                         delta, self->vertex_split, &why)) {
        self->previewing = TRUE;
        text = g_strdup_printf("%s %s %s %s", what, allium_format_short(x, delta[0], 2),
                               allium_format_short(y, delta[1], 2),
                               allium_format_short(z, delta[2], 2));
    } else {
        /* The brushes stay as they are: the map shows them so. */
        self->vertex_refused = TRUE;
        if (self->previewing) {
            self->previewing = FALSE;
            allium_document_preview_end(self->document);
        }
        text = g_strdup_printf(_("Not here: %s"), why ? why : "");
    }
    g_strlcpy(self->tool_info, text, sizeof self->tool_info);
    allium_view_show_info(self, self->tool_info);
    allium_view_queue_render(self);
}

/* The drag's edit with DELTA: the corners moved, or the new corner added. */
static gboolean write_edit(AlliumView *self, const double delta[3], GError **error)
{
    guint nb;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    g_autoptr(GArray) from = dragged_corners(self);
    if (self->vertex_split)
        return allium_document_split_vertex(self->document, brushes, nb, dragged(self)->point,
                                            delta, error);
    return allium_document_move_vertices(self->document, brushes, nb,
                                         (const double(*)[3])(gpointer) from->data, from->len,
                                         delta, error);
}

void allium_view_vertex_commit(AlliumView *self)
{
    const double *d = self->vertex_delta;
    if (self->vertex_refused || (d[0] == 0 && d[1] == 0 && d[2] == 0)) {
        if (self->previewing) {
            self->previewing = FALSE;
            allium_document_preview_end(self->document);
        }
        if (self->vertex_refused) {
            /* The handle snaps back; the status bar says why. */
            GError *error = NULL;
            if (!write_edit(self, d, &error) && error) {
                /* The status bar keeps the reason until the pointer moves on; the banner
                 * until it is closed. */
                allium_view_emit_pointer_info(self, error->message);
                allium_view_emit_edit_error(self, error->message);
                g_error_free(error);
            }
        }
        self->vertex_refused = FALSE;
        allium_view_queue_render(self);
        return;
    }
    self->previewing = FALSE; /* the edit replaces the preview */
    double moved[3];
    memcpy(moved, d, sizeof moved);
    GError *error = NULL;
    if (!write_edit(self, moved, &error)) {
        allium_document_preview_end(self->document);
        if (error) {
            allium_view_emit_edit_error(self, error->message);
            g_error_free(error);
        }
    } else {
        follow_drag(self, moved);
    }
    allium_view_queue_render(self);
}

gboolean allium_view_vertex_click(AlliumView *self, double x, double y, GdkModifierType state)
{
    gboolean toggle = (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)) != 0;
    int at = handle_under(self, x, y);
    if (at < 0) {
        if (!toggle) g_array_set_size(self->vertex_selected, 0);
        allium_view_queue_render(self);
        return FALSE;
    }
    const AlliumVertexHandle *h = &g_array_index(self->vertex_handles, AlliumVertexHandle, at);
    if (!toggle) g_array_set_size(self->vertex_selected, 0);
    select_handle(self, h->kind, h->point, toggle);
    allium_view_queue_render(self);
    return TRUE;
}

void allium_view_vertex_select_box(AlliumView *self, const double mins[3], const double maxs[3],
                                   gboolean add)
{
    refresh_handles(self);
    int r, u, d;
    al_view_axes(self->kind, &r, &u, &d);
    if (!add) g_array_set_size(self->vertex_selected, 0);
    for (guint i = 0; i < self->vertex_handles->len; i++) {
        const AlliumVertexHandle *h = &g_array_index(self->vertex_handles, AlliumVertexHandle, i);
        if (h->point[r] >= mins[r] && h->point[r] <= maxs[r] && h->point[u] >= mins[u] &&
            h->point[u] <= maxs[u])
            select_handle(self, h->kind, h->point, FALSE);
    }
    allium_view_queue_render(self);
}

void allium_view_vertex_finalize(AlliumView *self)
{
    g_clear_pointer(&self->vertex_handles, g_array_unref);
    g_clear_pointer(&self->vertex_corners, g_array_unref);
    g_clear_pointer(&self->vertex_selected, g_array_unref);
}
