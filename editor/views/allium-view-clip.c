/* The clip tool of a view (C): two or three points on the grid define a plane that cuts
 * the selected brushes.
 *
 * In a 2D view two clicks are enough: the plane holds the line through them and the view's
 * depth axis. In the 3D view three clicks on surfaces define it. Every view shows the
 * points, the plane (its line across the selection in 2D, its triangle in 3D) and an arrow
 * on the side that is kept. Tab cycles what is kept: the side the arrow points to, the
 * other side, or both (each brush split in two). Enter clips, one undoable step; Escape
 * forgets the points. The points belong to the view they were placed in, and Enter there
 * clips.
 */
#include "allium-config.h"

#include "allium-view-private.h"

#include "allium-preferences.h"
#include "al-plane.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

/* Length of the kept side's arrow, in map units, and of a point's marker. */
#define ARROW_LENGTH 24.0
#define MARKER 3.0

static double grid_size(void)
{
    return allium_preferences_get_grid_size(allium_preferences_get_default());
}

/* The plane's three points: the placed ones, and in 2D the first moved along the depth
 * axis. FALSE until there are enough. */
static gboolean plane_points(AlliumView *self, double p[3][3])
{
    if (self->kind == AL_VIEW_3D) {
        if (self->clip_count < 3) return FALSE;
        memcpy(p, self->clip_points, sizeof(double[3][3]));
        return TRUE;
    }
    if (self->clip_count < 2) return FALSE;
    int r, u, d;
    al_view_axes(self->kind, &r, &u, &d);
    memcpy(p[0], self->clip_points[0], sizeof p[0]);
    memcpy(p[1], self->clip_points[1], sizeof p[1]);
    memcpy(p[2], self->clip_points[0], sizeof p[2]);
    p[2][d] += 64;
    return TRUE;
}

static void add_segment(GArray *points, const double a[3], const double b[3])
{
    g_array_append_vals(points, a, 1);
    g_array_append_vals(points, b, 1);
}

/* The guides: a cross at each point, the plane, and the kept side's arrow (both ways when
 * both halves are kept). */
static void publish(AlliumView *self)
{
    if (!self->selection) return;
    g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(double[3]));
    for (int i = 0; i < self->clip_count; i++) {
        for (int k = 0; k < 3; k++) {
            double a[3], b[3];
            memcpy(a, self->clip_points[i], sizeof a);
            memcpy(b, self->clip_points[i], sizeof b);
            a[k] -= MARKER;
            b[k] += MARKER;
            add_segment(points, a, b);
        }
    }
    double p[3][3], n[3], dist;
    if (plane_points(self, p) && al_plane_from_points(p[0], p[1], p[2], n, &dist)) {
        double lo[3], hi[3];
        if (self->kind == AL_VIEW_3D || !allium_view_selection_bounds(self, FALSE, lo, hi)) {
            add_segment(points, p[0], p[1]);
            add_segment(points, p[1], p[2]);
            add_segment(points, p[2], p[0]);
        } else {
            /* The line across the selection's bounds (grown a little), in the view's plane. */
            int r, u, d;
            al_view_axes(self->kind, &r, &u, &d);
            (void) r;
            (void) u;
            double dir[3], reach = 0;
            for (int k = 0; k < 3; k++) {
                dir[k] = p[1][k] - p[0][k];
                reach += (hi[k] - lo[k]) * (hi[k] - lo[k]);
            }
            double len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
            reach = sqrt(reach) + 2 * grid_size();
            /* From the point of the line nearest the bounds' centre, both ways. */
            double a[3], b[3], t = 0;
            for (int k = 0; k < 3; k++)
                if (k != d) t += (0.5 * (lo[k] + hi[k]) - p[0][k]) * dir[k] / len;
            for (int k = 0; k < 3; k++) {
                double mid = p[0][k] + dir[k] / len * t;
                a[k] = mid - dir[k] / len * reach;
                b[k] = mid + dir[k] / len * reach;
            }
            a[d] = b[d] = p[0][d];
            add_segment(points, a, b);
        }
        /* The arrow starts at the middle of the points (of the two in 2D). */
        double c[3], tip[3], back[3];
        for (int k = 0; k < 3; k++) {
            c[k] = self->kind == AL_VIEW_3D ? (p[0][k] + p[1][k] + p[2][k]) / 3.0
                                            : 0.5 * (p[0][k] + p[1][k]);
            tip[k] = c[k] + n[k] * ARROW_LENGTH;
            back[k] = c[k] - n[k] * ARROW_LENGTH;
        }
        if (self->clip_keep != AL_DOC_CLIP_BACK) add_segment(points, c, tip);
        if (self->clip_keep != AL_DOC_CLIP_FRONT) add_segment(points, c, back);
    }
    allium_selection_set_guides(self->selection, (const double(*)[3]) (gpointer) points->data,
                                points->len, 0);
}

static void describe(AlliumView *self)
{
    const char *keep = self->clip_keep == AL_DOC_CLIP_FRONT  ? _("the arrow's side")
                       : self->clip_keep == AL_DOC_CLIP_BACK ? _("the other side")
                                                             : _("both halves");
    int needed = self->kind == AL_VIEW_3D ? 3 : 2;
    g_autofree char *text =
        self->clip_count < needed
            ? g_strdup_printf(_("Clip: click point %d of %d"), self->clip_count + 1, needed)
            : g_strdup_printf(_("Clip keeps %s — Tab: other side · Enter: clip · Esc: clear"),
                              keep);
    g_strlcpy(self->tool_info, text, sizeof self->tool_info);
    allium_view_show_info(self, self->tool_info);
}

/* --- internal API (allium-view-private.h) ------------------------------------------ */

void allium_view_clip_click(AlliumView *self, double x, double y)
{
    double point[3], g = grid_size();
    int needed = self->kind == AL_VIEW_3D ? 3 : 2;
    if (self->kind == AL_VIEW_3D) {
        al_pick pick;
        if (!allium_view_pick_at(self, x, y, &pick)) return;
        for (int k = 0; k < 3; k++) point[k] = al_snap(pick.point[k], g);
    } else {
        int r, u, d;
        al_view_axes(self->kind, &r, &u, &d);
        double scale = allium_view_scale(self);
        al_camera_unproject(&self->camera, x * scale, y * scale, 0, point);
        point[r] = al_snap(point[r], g);
        point[u] = al_snap(point[u], g);
        point[d] = al_snap(self->camera.position[d], g);
    }
    /* A new plane after a full one; a point on the last one is not a new point. */
    if (self->clip_count >= needed) self->clip_count = 0;
    if (self->clip_count > 0 &&
        memcmp(self->clip_points[self->clip_count - 1], point, sizeof point) == 0)
        return;
    memcpy(self->clip_points[self->clip_count++], point, sizeof point);
    publish(self);
    describe(self);
}

void allium_view_clip_clear(AlliumView *self)
{
    if (self->clip_count == 0) return;
    self->clip_count = 0;
    self->tool_info[0] = '\0';
    allium_view_show_info(self, "");
    if (self->selection) allium_selection_set_guides(self->selection, NULL, 0, 0);
}

gboolean allium_view_clip_key(AlliumView *self, guint keyval)
{
    if (self->tool != ALLIUM_TOOL_CLIP) return FALSE;
    switch (keyval) {
    case GDK_KEY_Tab:
    case GDK_KEY_ISO_Left_Tab:
        self->clip_keep = (self->clip_keep + 1) % 3;
        publish(self);
        describe(self);
        return TRUE;
    case GDK_KEY_Return:
    case GDK_KEY_KP_Enter: {
        GError *error = NULL;
        if (!allium_view_clip_apply(self, &error) && error) {
            g_strlcpy(self->tool_info, error->message, sizeof self->tool_info);
            allium_view_show_info(self, self->tool_info);
            g_error_free(error);
        }
        return TRUE;
    }
    case GDK_KEY_Escape:
        if (self->clip_count == 0) return FALSE;
        allium_view_clip_clear(self);
        return TRUE;
    default:
        return FALSE;
    }
}

/* --- public API (allium-view.h) ----------------------------------------------------- */

gboolean allium_view_clip_apply(AlliumView *self, GError **error)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), FALSE);
    double p[3][3], n[3], dist;
    if (!plane_points(self, p) || !al_plane_from_points(p[0], p[1], p[2], n, &dist)) {
        g_set_error_literal(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_INVALID_ARGUMENT,
                            self->kind == AL_VIEW_3D
                                ? _("Clip: place three points that are not on one line")
                                : _("Clip: place two different points"));
        return FALSE;
    }
    guint nb = 0;
    const gint64 *brushes =
        self->selection ? allium_selection_get_brushes(self->selection, &nb) : NULL;
    if (nb == 0 || !self->document) {
        g_set_error_literal(error, ALLIUM_DOCUMENT_ERROR, AL_ERR_INVALID_ARGUMENT,
                            _("Clip: select the brushes to cut first"));
        return FALSE;
    }
    g_autofree gint64 *pieces = NULL;
    guint count = 0;
    if (!allium_document_clip(self->document, brushes, nb, (const double(*)[3]) p,
                              (al_doc_clip_keep) self->clip_keep, &pieces, &count, error))
        return FALSE;
    allium_selection_select_brushes(self->selection, pieces, count, ALLIUM_SELECT_REPLACE);
    allium_view_clip_clear(self);
    return TRUE;
}

void allium_view_set_clip_keep(AlliumView *self, int keep)
{
    g_return_if_fail(ALLIUM_IS_VIEW(self));
    self->clip_keep = CLAMP(keep, 0, 2);
    if (self->clip_count) {
        publish(self);
        describe(self);
    }
}

guint allium_view_get_clip_point_count(AlliumView *self)
{
    g_return_val_if_fail(ALLIUM_IS_VIEW(self), 0);
    return (guint) self->clip_count;
}
