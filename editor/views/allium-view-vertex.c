/* The vertex tool of a view (C): corners, edges and faces of the selected brushes as
 * handles, dragged on the grid.
 *
 * Every view shows the selected brushes' corners (white squares), the middles of their
 * edges (smaller, cyan) and the centres of their faces (smaller, yellow). A drag that
 * starts on a handle moves what it stands for (a corner; an edge's two corners; a face's
 * corners) in the view's plane, in the 3D view horizontally at the handle's height. A
 * corner lands on the grid; an edge or a face moves by whole grid steps. Each step of the
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

/* The handles of the selected brushes as the document holds them now. */
static void refresh_handles(AlliumView *self)
{
    if (!self->vertex_handles) {
        self->vertex_handles = g_array_new(FALSE, FALSE, sizeof(AlliumVertexHandle));
        self->vertex_corners = g_array_new(FALSE, FALSE, sizeof(double[3]));
    }
    if (!self->document || !self->selection) {
        g_array_set_size(self->vertex_handles, 0);
        return;
    }
    guint64 generation = allium_document_get_generation(self->document),
            serial = allium_selection_get_serial(self->selection);
    if (generation == self->vertex_generation && serial == self->vertex_serial) return;
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

/* The corners the dragged handle moves, deduplicated (a corner the tool knows once). */
static GArray *dragged_corners(AlliumView *self)
{
    const AlliumVertexHandle *h = dragged(self);
    GArray *out = g_array_new(FALSE, FALSE, sizeof(double[3]));
    for (int i = 0; i < h->count; i++)
        corner_index(out, corner_at(self->vertex_corners, (guint) (h->first + i)));
    return out;
}

/* --- internal API (allium-view-private.h) ------------------------------------------ */

void allium_view_vertex_append_handles(AlliumView *self, GArray *points, GArray *colours)
{
    static const guint8 white[4] = {235, 235, 235, 255}, cyan[4] = {80, 220, 235, 255},
                        yellow[4] = {240, 220, 60, 255}, amber[4] = {255, 150, 30, 255},
                        red[4] = {235, 60, 50, 255};
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
        allium_view_append_handle_square(self, h->point,
                                         h->kind == 0 ? CORNER_RADIUS : SMALL_RADIUS,
                                         h->kind == 0   ? white
                                         : h->kind == 1 ? cyan
                                                        : yellow,
                                         points, colours);
    }
}

gboolean allium_view_vertex_begin(AlliumView *self, double x, double y)
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
        /* Corners before edges before faces; then the nearer on the screen (whole pixels,
         * so that handles drawn on one another tie), then the nearer the camera. */
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
    if (best < 0) return FALSE;
    self->vertex_handle = best;
    const AlliumVertexHandle *h = dragged(self);
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
    for (int k = 0; k < 3; k++) {
        if (k == self->edit_axis) {
            delta[k] = 0;
            continue;
        }
        double raw = point[k] - self->edit_from[k];
        /* A corner lands on the grid; an edge or a face moves by whole steps. */
        delta[k] =
            h->kind == 0 ? al_snap(h->point[k] + raw, grid) - h->point[k] : al_snap(raw, grid);
    }
    if (memcmp(delta, self->vertex_delta, sizeof delta) == 0 &&
        (self->previewing || self->vertex_refused ||
         (delta[0] == 0 && delta[1] == 0 && delta[2] == 0)))
        return;
    memcpy(self->vertex_delta, delta, sizeof delta);
    self->vertex_refused = FALSE;
    char x[ALLIUM_NUMBER_SIZE], y[ALLIUM_NUMBER_SIZE], z[ALLIUM_NUMBER_SIZE];
    const char *what = h->kind == 0   ? _("Move corner")
                       : h->kind == 1 ? _("Move edge")
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
                                         delta, &why)) {
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
            guint nb;
            const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
            g_autoptr(GArray) from = dragged_corners(self);
            GError *error = NULL;
            if (!allium_document_move_vertices(self->document, brushes, nb,
                                               (const double(*)[3])(gpointer) from->data, from->len,
                                               d, &error) &&
                error) {
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
    guint nb;
    const gint64 *brushes = allium_selection_get_brushes(self->selection, &nb);
    g_autoptr(GArray) from = dragged_corners(self);
    GError *error = NULL;
    if (!allium_document_move_vertices(self->document, brushes, nb,
                                       (const double(*)[3])(gpointer) from->data, from->len, d,
                                       &error)) {
        allium_document_preview_end(self->document);
        if (error) {
            allium_view_emit_edit_error(self, error->message);
            g_error_free(error);
        }
    }
    allium_view_queue_render(self);
}

void allium_view_vertex_finalize(AlliumView *self)
{
    g_clear_pointer(&self->vertex_handles, g_array_unref);
    g_clear_pointer(&self->vertex_corners, g_array_unref);
}
