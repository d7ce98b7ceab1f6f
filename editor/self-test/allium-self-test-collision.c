/* The GUI self-test's collision-preview steps: a test box placed with a click in the 3D
 * view and dragged into a wall in the top view, and an agent walking from an agent_start
 * placed in the map. The views get the pointer through allium_view_simulate_drag, and the
 * agents are started with the window's action as the menu does. */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "al-move.h"
#include "allium-collision.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static AlliumSnapshot *current(SelfTest *t)
{
    return allium_document_get_snapshot(allium_window_get_document(t->window));
}

gboolean step_test_box(SelfTest *t)
{
    AlliumCollision *c = t->window->collision;
    AlliumSnapshot *snap = current(t);
    if (!snap || !snap->world) return FALSE;
    if (!t->step_begun) {
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "testbox"),
              "win.tool('testbox') activated");
        /* A click in the top view, near the hall's south-west corner, drops a box onto
         * the floor there. */
        AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
        double corner[3] = {96, 96, 0}, cx, cy;
        gboolean seen = top && to_widget(top, corner, &cx, &cy);
        check(t, seen, "the hall's corner is in the top view");
        if (!seen) return TRUE;
        allium_view_simulate_drag(top, cx, cy, cx, cy, 0, 0);
        check(t, allium_collision_box_count(c) == 1, "a click with the test-box tool placed a box "
              "(%d boxes)", allium_collision_box_count(c));
        double o[3];
        if (!allium_collision_get_box(c, 0, o, NULL)) return TRUE;
        int stand = al_world_find_hull(snap->world, "stand");
        double below[3] = {o[0], o[1], o[2] - 1};
        al_trace tr;
        al_world_trace(snap->world, stand, o, below, &tr);
        check(t, tr.hit && tr.fraction < 0.1 && tr.normal[2] > 0.9,
              "it stands on the floor (origin %g %g %g)", o[0], o[1], o[2]);
        g_autofree char *text = allium_collision_describe_box(c, 0);
        check(t, strstr(text, "stand: empty,") != NULL, "its readout says so: \"%s\"", text);

        /* Dragged in the top view far to the west: it stops at the hall's west wall and
         * slides no farther. */
        double from[3] = {o[0], o[1], o[2]}, to[3] = {o[0] - 2000, o[1], o[2]};
        double x0, y0, x1, y1;
        gboolean ok = to_widget(top, from, &x0, &y0) && to_widget(top, to, &x1, &y1);
        check(t, ok, "the box and a point beyond the wall are in the top view");
        if (!ok) return TRUE;
        allium_view_simulate_drag(top, x0, y0, x1, y1, 8, 0);
        double after[3];
        allium_collision_get_box(c, 0, after, NULL);
        /* The brute-force check: the box is out of every brush, and a step further west
         * would enter one. */
        al_trace west;
        double further[3] = {after[0] - 1, after[1], after[2]};
        al_world_trace(snap->world, stand, after, further, &west);
        check(t, after[0] < o[0] - 16 && !al_world_point_solid(snap->world, stand, after) &&
                     west.hit && west.normal[0] > 0.9,
              "the drag stopped it against the west wall (x %g, from %g)", after[0], o[0]);
        g_free(text);
        text = allium_collision_describe_box(c, 0);
        check(t, strstr(text, "hit at") != NULL && strstr(text, "normal 1.00 0.00 0.00") != NULL,
              "the readout gives the contact and its normal: \"%s\"", text);
        return FALSE;
    }
    if (!settle(t)) return FALSE;
    shoot_and_compare(t, "test-box.png", NULL);
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "select");
    return TRUE;
}

gboolean step_agents(SelfTest *t)
{
    AlliumCollision *c = t->window->collision;
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        double at[3] = {128, 128, 24};
        GError *error = NULL;
        check(t, allium_document_add_point_entity(doc, "agent_start", at, NULL, &error),
              "an agent_start was added (%s)", error ? error->message : "ok");
        g_clear_error(&error);
        t->edits++;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    if (allium_collision_agent_count(c) == 0) {
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.agents-start", NULL),
              "win.agents-start activated");
        check(t, allium_collision_agent_count(c) == 1 && allium_collision_agents_running(c),
              "one agent walks (%d)", allium_collision_agent_count(c));
        allium_collision_get_agent(c, 0, t->agent_start);
        return FALSE;
    }
    /* A second of its 60 Hz steps. */
    if (g_get_monotonic_time() - t->step_started_us < 1500000) return FALSE;
    double now[3];
    allium_collision_get_agent(c, 0, now);
    double moved = hypot(now[0] - t->agent_start[0], now[1] - t->agent_start[1]);
    AlliumSnapshot *snap = current(t);
    int stand = al_world_find_hull(snap->world, "stand");
    check(t, moved > 16, "the agent walked %.0f units", moved);
    check(t, !al_world_point_solid(snap->world, stand, now), "and is not inside solid");
    shoot_and_compare(t, "agents.png", NULL);
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.agents-stop", NULL);
    check(t, !allium_collision_agents_running(c), "win.agents-stop stopped them");
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.agents-reset", NULL);
    allium_collision_clear_boxes(c);
    return TRUE;
}
