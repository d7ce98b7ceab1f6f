/* The GUI self-test's scripted build: a small sealed map made from an empty file with the
 * tools, as a designer would make it.
 *
 * New map → the brush tool draws a 512 × 512 box in the top view → Hollow makes it a room
 * → the entity tool places a light and a player start in it. Then: the live compiler's
 * snapshot has the six walls and two entities and no leak, the radiosity converges to the
 * target residual, undoing every step empties the map and redoing them gives the same
 * room back, sealed. Screenshots along the way (build-*.png).
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-preferences.h"

#include <glib/gstdio.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The room, in the top view: a 512 × 512 box. */
#define ROOM_HALF 256.0
/* Steps that make it: the box, hollow, the light, the player start. */
#define BUILD_STEPS 4

enum {
    BUILD_OPEN,    /* waiting for the new window's first compile */
    BUILD_BOX,     /* the box was drawn */
    BUILD_HOLLOW,  /* it was hollowed */
    BUILD_PLACED,  /* the light and the player start were placed */
    BUILD_LIT,     /* the radiosity reached its target */
    BUILD_UNDONE,  /* every step was undone */
    BUILD_REDONE,  /* and redone */
};

static AlliumView *view_in(AlliumWindow *window, al_view_kind kind)
{
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        AlliumView *view = allium_window_get_view(window, i);
        if (allium_view_get_kind(view) == kind) return view;
    }
    return NULL;
}

static AlliumSnapshot *built_snapshot(SelfTest *t)
{
    return allium_document_get_snapshot(allium_window_get_document(t->built));
}

static int count_class(const al_input *in, const char *classname)
{
    int count = 0;
    for (int e = 1; e < in->entity_count; e++)
        count += g_strcmp0(in->entities[e].classname, classname) == 0;
    return count;
}

/* Whether MODEL or one of its submenus has an item that activates ACTION with TARGET. */
static gboolean menu_has(GMenuModel *model, const char *action, const char *target)
{
    for (int i = 0; i < g_menu_model_get_n_items(model); i++) {
        g_autofree char *a = NULL, *v = NULL;
        if (g_menu_model_get_item_attribute(model, i, G_MENU_ATTRIBUTE_ACTION, "s", &a) &&
            g_menu_model_get_item_attribute(model, i, G_MENU_ATTRIBUTE_TARGET, "s", &v) &&
            g_str_equal(a, action) && g_str_equal(v, target))
            return TRUE;
        GMenuLinkIter *links = g_menu_model_iterate_item_links(model, i);
        GMenuModel *link;
        gboolean found = FALSE;
        while (!found && g_menu_link_iter_get_next(links, NULL, &link)) {
            found = menu_has(link, action, target);
            g_object_unref(link);
        }
        g_object_unref(links);
        if (found) return TRUE;
    }
    return FALSE;
}

/* Places an entity of CLASSNAME with a click at map point P of the top view. */
static void place(SelfTest *t, AlliumView *top, const char *classname, const double p[3])
{
    double x, y;
    check(t, gtk_widget_activate_action(GTK_WIDGET(t->built), "win.place-entity", "s",
                                        classname),
          "Edit → Place Entity → %s", classname);
    check(t, to_widget(top, p, &x, &y), "the %s's spot is in the top view", classname);
    allium_view_simulate_drag(top, x, y, x, y, 0, 0);
}

/* Checks the room: six walls, a light, a player start, sealed. */
static void check_room(SelfTest *t, const char *when)
{
    AlliumSnapshot *snap = built_snapshot(t);
    const al_input *in = &snap->input.input;
    al_leak_info leak;
    check(t, snap->world && in->brush_count == 6 && count_class(in, "light") == 1 &&
                 count_class(in, "info_player_start") == 1,
          "%s: six walls, a light and a player start (%d brushes, %d entities)", when,
          in->brush_count, in->entity_count - 1);
    check(t, snap->world && !al_world_leak(snap->world, &leak), "%s: the room is sealed", when);
}

gboolean step_build_from_empty(SelfTest *t)
{
    g_autofree char *path = dir_file(t, "built.allium");
    double g = allium_preferences_get_grid_size(allium_preferences_get_default());
    if (!t->step_begun) {
        t->phase = BUILD_OPEN;
        g_unlink(path);
        check(t, allium_application_new_map(t->app, path), "a new, empty map is created");
        return FALSE;
    }
    if (!t->built) {
        AlliumWindow *window = allium_application_find_window(t->app, path);
        if (!window || !compiled_current(window) || !settle(t)) return FALSE;
        t->built = g_object_ref(window);
        check(t, built_snapshot(t)->input.input.brush_count == 0, "it opens with no brushes");
        /* The 3D camera stands over the ground plane looking at the origin, not in the
         * ground's plane at the origin. */
        AlliumView *eye = view_in(window, AL_VIEW_3D);
        const al_camera *cam = allium_view_get_camera(eye);
        double origin[3] = {0, 0, 0}, px, py;
        gboolean seen = al_camera_project(cam, origin, &px, &py) && px >= 0 && py >= 0 &&
                        px < cam->width && py < cam->height;
        check(t,
              cam->position[2] > 8 && seen && fabs(cam->position[0]) + fabs(cam->position[1]) > 64,
              "the new map's 3D camera stands over the ground, back from the origin, which it "
              "sees (%.0f %.0f %.0f)",
              cam->position[0], cam->position[1], cam->position[2]);
        memcpy(t->mark_lo, cam->position, sizeof t->mark_lo);
    }
    AlliumWindow *w = t->built;
    AlliumView *top = view_in(w, AL_VIEW_TOP);
    if (!compiled_current(w)) return FALSE;
    AlliumSnapshot *snap = built_snapshot(t);
    const al_input *in = &snap->input.input;
    switch (t->phase) {
    case BUILD_OPEN: {
        /* The top view shows the room's square. */
        double lo[3] = {-ROOM_HALF - 64, -ROOM_HALF - 64, -64}, hi[3] = {ROOM_HALF + 64, ROOM_HALF + 64, 64};
        al_camera_frame(allium_view_get_camera(top), lo, hi);
        allium_view_queue_render(top);
        g_object_set(w, "tool", "brush", NULL);
        double a[3] = {-ROOM_HALF, -ROOM_HALF, 0}, b[3] = {ROOM_HALF, ROOM_HALF, 0};
        double x0, y0, x1, y1;
        gboolean ok = to_widget(top, a, &x0, &y0) && to_widget(top, b, &x1, &y1);
        check(t, ok, "the room's corners are in the top view");
        if (!ok) return TRUE;
        allium_view_simulate_drag(top, x0, y0, x1, y1, 5, 0);
        t->phase = BUILD_BOX;
        return FALSE;
    }
    case BUILD_BOX: {
        double box_lo[3], box_hi[3];
        gboolean one = in->brush_count == 1 && snap->scene &&
                       al_scene_brush_bounds(snap->scene, 0, box_lo, box_hi);
        double *lo = one ? box_lo : NULL, *hi = one ? box_hi : NULL;
        check(t, lo && fabs(lo[0] + ROOM_HALF) < 1e-6 && fabs(hi[1] - ROOM_HALF) < 1e-6 &&
                     hi[2] - lo[2] >= 4 * g,
              "the brush tool drew the 512 × 512 box (%d brushes)", in->brush_count);
        /* Drawn around the camera, it went under it: the camera stands over it. */
        check(t, hi && hi[2] <= t->mark_lo[2] - g / 2,
              "the box drawn around the 3D camera lies under it (top %g, camera %g)",
              hi ? hi[2] : 0, t->mark_lo[2]);
        g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(w), "build-first-box.png");
        check(t, gtk_widget_activate_action(GTK_WIDGET(w), "win.hollow", NULL),
              "Edit → Hollow");
        /* The 3D camera inside the room, half way up, looking along it: the 2D views
         * place entities at its height. */
        al_camera *eye = allium_view_get_camera(view_in(w, AL_VIEW_3D));
        eye->position[0] = 0;
        eye->position[1] = -ROOM_HALF + 2 * g;
        eye->position[2] = al_snap(0.5 * (lo[2] + hi[2]), g);
        eye->yaw = 90;
        eye->pitch = -10;
        allium_view_queue_render(view_in(w, AL_VIEW_3D));
        t->frames_mark = allium_view_get_frames_drawn(view_in(w, AL_VIEW_3D));
        t->phase = BUILD_HOLLOW;
        return FALSE;
    }
    case BUILD_HOLLOW: {
        /* The 2D views learn the 3D camera when the 3D view draws from it. */
        if (allium_view_get_frames_drawn(view_in(w, AL_VIEW_3D)) <= t->frames_mark) return FALSE;
        check(t, in->brush_count == 6, "hollowing made six walls (%d)", in->brush_count);
        g_object_set(w, "tool", "select", NULL);
        double light[3] = {-ROOM_HALF / 2, 0, 0}, start[3] = {ROOM_HALF / 2, 0, 0};
        /* The Place Entity menu lists the point classes of the entity definitions. */
        GMenuModel *classes = G_MENU_MODEL(w->place_entity_menu);
        check(t,
              menu_has(classes, "win.place-entity", "light") &&
                  menu_has(classes, "win.place-entity", "info_player_start") &&
                  menu_has(classes, "win.place-entity", "monster_ogre") &&
                  !menu_has(classes, "win.place-entity", "func_door"),
              "Place Entity lists the definitions' point classes (light, monster_ogre), not "
              "their solid ones");
        place(t, top, "light", light);
        place(t, top, "info_player_start", start);
        t->phase = BUILD_PLACED;
        return FALSE;
    }
    case BUILD_PLACED:
        check_room(t, "built");
        for (int e = 1; e < in->entity_count; e++) {
            if (g_strcmp0(in->entities[e].classname, "light") != 0) continue;
            /* Its definition's default brightness; defaults of "0" are not written. */
            check(t,
                  g_strcmp0(allium_snapshot_entity_value(snap, e, "light"), "300") == 0 &&
                      !allium_snapshot_entity_value(snap, e, "style"),
                  "the placed light has the default keys of its definition");
        }
        double floor_z = G_MAXDOUBLE, ceiling_z = -G_MAXDOUBLE;
        for (int b = 0; b < in->brush_count; b++) {
            double lo[3], hi[3];
            if (!snap->scene || !al_scene_brush_bounds(snap->scene, b, lo, hi)) continue;
            floor_z = MIN(floor_z, lo[2]);
            ceiling_z = MAX(ceiling_z, hi[2]);
        }
        for (int e = 1; e < in->entity_count; e++) {
            double o[3] = {0, 0, 0};
            const char *origin = allium_snapshot_entity_value(snap, e, "origin");
            if (origin) sscanf(origin, "%lf %lf %lf", &o[0], &o[1], &o[2]);
            check(t, o[2] > floor_z + g && o[2] < ceiling_z - g,
                  "the %s stands inside the room, at the 3D camera's height (z %g)",
                  in->entities[e].classname, o[2]);
        }
        /* Light it to the target residual. */
        allium_document_light_run(allium_window_get_document(w));
        t->phase = BUILD_LIT;
        return FALSE;
    case BUILD_LIT: {
        guint count = 0;
        AlliumDocument *doc = allium_window_get_document(w);
        const AlliumResidualPoint *points = allium_document_get_residuals(doc, &count);
        double target = allium_document_get_light_target(doc);
        if (count == 0 || points[count - 1].residual > target || allium_document_get_lighting(doc))
            return FALSE;
        if (!settle(t)) return FALSE;
        check(t, points[count - 1].residual <= target,
              "the radiosity converged to %.3f (target %.3f) in %u steps",
              points[count - 1].residual, target, count);
        g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(w), "build-lit.png");
        for (int i = 0; i < BUILD_STEPS; i++)
            gtk_widget_activate_action(GTK_WIDGET(w), "win.undo", NULL);
        t->phase = BUILD_UNDONE;
        return FALSE;
    }
    case BUILD_UNDONE:
        check(t, in->brush_count == 0 && in->entity_count == 1 &&
                     !allium_document_can_undo(allium_window_get_document(w)),
              "undoing the %d steps empties the map (%d brushes, %d entities)", BUILD_STEPS,
              in->brush_count, in->entity_count - 1);
        for (int i = 0; i < BUILD_STEPS; i++)
            gtk_widget_activate_action(GTK_WIDGET(w), "win.redo", NULL);
        t->phase = BUILD_REDONE;
        return FALSE;
    default: {
        if (!settle(t)) return FALSE;
        check_room(t, "redone");
        g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(w), "build-redone.png");
        gtk_window_destroy(GTK_WINDOW(w));
        g_clear_object(&t->built);
        return TRUE;
    }
    }
}
