/* The GUI self-test's collision-preview steps: a test box placed with a click in the 3D
 * view and dragged into a wall in the top view, and an agent walking from an agent_start
 * placed in the map. The views get the pointer through allium_view_simulate_drag, and the
 * agents are started with the window's action as the menu does. */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "al-move.h"
#include "allium-collision.h"
#include "allium-format.h"
#include "allium-view-private.h"

#include <glib/gi18n.h>
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
    /* The readout in the top view's header (not maximized): whole, clear of the maximize
     * button, its numbers without exponents or negative zeros. */
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    graphene_rect_t label, button;
    gboolean placed =
        top && gtk_widget_compute_bounds(GTK_WIDGET(top->info_label), GTK_WIDGET(top), &label) &&
        gtk_widget_compute_bounds(GTK_WIDGET(top->maximize_button), GTK_WIDGET(top), &button);
    int needed = 0;
    if (placed) {
        /* Measures count the widget's margins in. */
        GtkWidget *l = GTK_WIDGET(top->info_label);
        int across =
            (int) label.size.width + gtk_widget_get_margin_start(l) + gtk_widget_get_margin_end(l);
        gtk_widget_measure(l, GTK_ORIENTATION_VERTICAL, across, &needed, NULL, NULL, NULL);
        needed -= gtk_widget_get_margin_top(l) + gtk_widget_get_margin_bottom(l);
    }
    const char *shown = placed ? gtk_label_get_text(top->info_label) : "";
    check(t,
          placed && !graphene_rect_intersection(&label, &button, NULL) &&
              label.origin.x + label.size.width <= gtk_widget_get_width(GTK_WIDGET(top)) &&
              label.size.height >= needed && strstr(shown, "large: "),
          "the readout is whole and clear of the maximize button (%.0f×%.0f at %.0f, %d high "
          "needed; the button at %.0f; \"%s\")",
          placed ? label.size.width : 0, placed ? label.size.height : 0,
          placed ? label.origin.x : 0, needed, placed ? button.origin.x : 0, shown);
    check(t, !strstr(shown, "e+") && !strstr(shown, "-0.00"), "its numbers read plainly");
    shoot_and_compare(t, "test-box.png", NULL);
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "select");
    return TRUE;
}

/* How numbers are written for the designer (allium-format.c). */
gboolean step_numbers(SelfTest *t)
{
    static const struct {
        double v;
        int decimals;
        gboolean fixed;
        const char *expect;
    } cases[] = {
        {1487.5, 2, FALSE, "1487.5"}, {-1e-17, 2, TRUE, "0.00"},     {-0.004, 2, TRUE, "0.00"},
        {-0.71, 2, TRUE, "-0.71"},    {16, 2, FALSE, "16"},          {-0.25, 2, FALSE, "-0.25"},
        {-0.3, 0, TRUE, "0"},         {131072, 1, TRUE, "131072.0"}, {0.126, 2, FALSE, "0.13"},
    };
    /* The test runs in the C locale's numbers (the separator a point). */
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        char buf[ALLIUM_NUMBER_SIZE];
        const char *got = cases[i].fixed ? allium_format_fixed(buf, cases[i].v, cases[i].decimals)
                                         : allium_format_short(buf, cases[i].v, cases[i].decimals);
        check(t, g_str_equal(got, cases[i].expect), "%g with %d decimals reads \"%s\" (\"%s\")",
              cases[i].v, cases[i].decimals, cases[i].expect, got);
    }
    return TRUE;
}

gboolean step_test_box_size(SelfTest *t)
{
    AlliumCollision *c = t->window->collision;
    AlliumSnapshot *snap = current(t);
    if (!t->step_begun) {
        allium_collision_clear_boxes(c);
        GList *before = gtk_window_list_toplevels();
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.test-box-size", NULL),
              "win.test-box-size activated");
        t->dialog = take_new_dialog(before);
        check(t, t->dialog != NULL, "it opened the Test Box Size dialog");
        return t->dialog == NULL;
    }
    if (t->dialog) {
        if (!gtk_widget_get_mapped(GTK_WIDGET(t->dialog)) || !settle(t)) return FALSE;
        g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->dialog), "test-box-size.png");
        /* The designer types 40 × 40 × 20 (a crawling agent) and presses Use. */
        g_autoptr(GPtrArray) spins = g_ptr_array_new();
        g_autoptr(GPtrArray) buttons = g_ptr_array_new();
        collect_widgets(GTK_WIDGET(t->dialog), GTK_TYPE_SPIN_BUTTON, spins);
        collect_widgets(gtk_window_get_titlebar(t->dialog), GTK_TYPE_BUTTON, buttons);
        check(t, spins->len == 3, "the dialog has three sizes (%u)", spins->len);
        const double typed[3] = {40, 40, 20};
        for (guint k = 0; k < spins->len && k < 3; k++)
            gtk_editable_set_text(GTK_EDITABLE(spins->pdata[k]), k < 2 ? "40" : "20");
        GtkWidget *use = NULL;
        for (guint i = 0; i < buttons->len; i++)
            if (g_strcmp0(gtk_button_get_label(buttons->pdata[i]), _("_Use")) == 0) use = buttons->pdata[i];
        check(t, use != NULL, "it has a Use button");
        if (use) g_signal_emit_by_name(use, "clicked");
        else gtk_window_destroy(t->dialog);
        g_clear_object(&t->dialog);
        double lo[3], hi[3];
        check(t, allium_collision_get_hull_box(c, lo, hi) && hi[0] - lo[0] == typed[0] &&
                     hi[2] - lo[2] == typed[2],
              "new test boxes are %s", allium_collision_get_hull(c));
        return FALSE;
    }
    /* A box of that size dropped in the top view and dragged west into the wall: it stops
     * where a plane-shifted sweep (the brute-force check) says a further unit would hit. */
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    double corner[3] = {96, 96, 0}, cx, cy;
    if (!top || !to_widget(top, corner, &cx, &cy)) {
        check(t, FALSE, "the point to place the box is in the top view");
        return TRUE;
    }
    allium_view_simulate_drag(top, cx, cy, cx, cy, 0, 0);
    check(t, allium_collision_box_count(c) == 1, "a click placed a box of that size");
    double o[3];
    if (!allium_collision_get_box(c, 0, o, NULL)) return TRUE;
    double lo[3], hi[3];
    allium_collision_get_hull_box(c, lo, hi);
    al_trace down;
    double below[3] = {o[0], o[1], o[2] - 1};
    al_world_trace_box(snap->world, lo, hi, o, below, &down);
    check(t, down.hit && !down.start_solid && down.normal[2] > 0.9,
          "it rests on the floor (origin z %.2f)", o[2]);
    double from[3] = {o[0], o[1], o[2]}, to[3] = {o[0] - 2000, o[1], o[2]};
    double x0, y0, x1, y1;
    if (!to_widget(top, from, &x0, &y0) || !to_widget(top, to, &x1, &y1)) return TRUE;
    allium_view_simulate_drag(top, x0, y0, x1, y1, 8, 0);
    double after[3];
    allium_collision_get_box(c, 0, after, NULL);
    al_trace west;
    double further[3] = {after[0] - 1, after[1], after[2]};
    al_world_trace_box(snap->world, lo, hi, after, further, &west);
    check(t, after[0] < o[0] - 16 && !west.start_solid && west.hit && west.normal[0] > 0.9,
          "the drag stopped it against the west wall (x %.2f, from %.2f)", after[0], o[0]);
    g_autofree char *text = allium_collision_describe_box(c, 0);
    check(t, strstr(text, "40×40×20 box") && strstr(text, "free"), "its readout: \"%s\"", text);
    /* Kept as text between runs (allium-session.h), it comes back the same. */
    g_autofree char *kept = allium_collision_save_boxes(c);
    g_autoptr(AlliumCollision) copy = allium_collision_new();
    allium_collision_set_snapshot(copy, snap);
    allium_collision_restore_boxes(copy, kept);
    double back[3] = {0};
    gboolean same = allium_collision_box_count(copy) == 1 &&
                    allium_collision_get_box(copy, 0, back, NULL) && back[0] == after[0] &&
                    back[1] == after[1] && back[2] == after[2];
    g_autofree char *copied = allium_collision_describe_box(copy, 0);
    check(t, same && strstr(copied, "40×40×20 box"), "kept as \"%s\", it reads back the same",
          g_strchomp(kept));
    allium_collision_next_hull(c); /* back to the map's hulls */
    allium_collision_clear_boxes(c);
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "select");
    return TRUE;
}

/* The test-box tool says which hull a click places (and H changes it at once), and a
 * click that places no box says why. */
gboolean step_test_box_feedback(SelfTest *t)
{
    AlliumCollision *c = t->window->collision;
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP), *view = view_3d(t);
    if (!t->step_begun) {
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "testbox");
        allium_view_queue_render(top);
        t->phase = 0;
        return FALSE;
    }
    if (!settle(t)) return FALSE;
    const char *header = gtk_label_get_text(top->info_label);
    if (t->phase == 0) {
        check(t, strstr(header, "New test boxes: stand · H: next hull") != NULL,
              "with the test-box tool the top view's header names the hull (\"%s\")", header);
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.test-hull", NULL),
              "H (win.test-hull) activated");
        t->phase = 1;
        t->settled = FALSE;
        return FALSE;
    }
    if (t->phase == 1) {
        check(t, strstr(header, "New test boxes: crouch") != NULL,
              "H changed it to the next hull at once (\"%s\")", header);
        /* The 3D camera far outside the map, looking up and away: a click hits nothing. */
        al_camera *cam = allium_view_get_camera(view);
        al_camera saved = *cam;
        cam->position[0] = cam->position[1] = cam->position[2] = 20000;
        cam->yaw = 45;
        cam->pitch = 60;
        int before = allium_collision_box_count(c);
        double cx = gtk_widget_get_width(GTK_WIDGET(view)) / 2.0;
        double cy = gtk_widget_get_height(GTK_WIDGET(view)) / 2.0;
        allium_view_simulate_drag(view, cx, cy, cx, cy, 0, 0);
        *cam = saved;
        allium_view_queue_render(view);
        check(t, allium_collision_box_count(c) == before, "a click on nothing placed no box");
        t->phase = 2;
        t->settled = FALSE;
        return FALSE;
    }
    const char *said = gtk_label_get_text(view->info_label);
    check(t, strstr(said, "No test box: nothing under the pointer") != NULL,
          "and the 3D view's header says why (\"%s\")", said);
    shoot_and_compare(t, "test-box-feedback.png", NULL);
    allium_collision_next_hull(c); /* large */
    allium_collision_next_hull(c); /* back to stand */
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "select");
    return TRUE;
}

gboolean step_agents(SelfTest *t)
{
    AlliumCollision *c = t->window->collision;
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        /* An agent_start aimed at a waypoint 192 units east across open floor, so that
         * where the agent goes does not depend on its random wandering. */
        double at[3] = {128, 128, 24}, goal[3] = {320, 128, 24};
        GError *error = NULL;
        gint64 start = 0, waypoint = 0;
        gboolean ok = allium_document_add_point_entity(doc, "waypoint", goal, &waypoint, &error) &&
                      allium_document_set_entity_property(doc, waypoint, "targetname", "self_test",
                                                          &error) &&
                      allium_document_add_point_entity(doc, "agent_start", at, &start, &error) &&
                      allium_document_set_entity_property(doc, start, "target", "self_test",
                                                          &error);
        check(t, ok, "an agent_start aimed at a waypoint was added (%s)",
              error ? error->message : "ok");
        g_clear_error(&error);
        t->edits += 4;
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
    check(t, moved > 64 && now[0] > t->agent_start[0], "the agent walked %.0f units towards its "
          "waypoint", moved);
    check(t, !al_world_point_solid(snap->world, stand, now), "and is not inside solid");
    /* A click on the agent in the top view watches it: yellow, and described in the
     * status bar. */
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
    double ax, ay;
    if (top && to_widget(top, now, &ax, &ay)) {
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "select");
        allium_view_simulate_click(top, ax, ay, 0);
        const char *status = gtk_label_get_text(t->window->selection_label);
        check(t, allium_collision_get_watched_agent(c) == 0 && g_str_has_prefix(status, "Agent 1 of 1"),
              "a click on it watches it: \"%s\"", status);
    } else {
        check(t, FALSE, "the agent is in the top view");
    }
    shoot_and_compare(t, "agents.png", NULL);
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.agents-stop", NULL);
    check(t, !allium_collision_agents_running(c), "win.agents-stop stopped them");
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.agents-reset", NULL);
    allium_collision_clear_boxes(c);
    return TRUE;
}

/* A listener of the document's "changed" signal that changes the selection, as any
 * listener may: the properties panel is rebuilt twice (for the world, then for the
 * entity again) in the middle of its row's commit. */
static void reselect_cb(AlliumDocument *document, SelfTest *t)
{
    (void) document;
    guint n = 0;
    const gint64 *entities = allium_selection_get_entities(t->window->selection, &n);
    gint64 entity = n == 1 ? entities[0] : 0;
    allium_selection_clear(t->window->selection);
    if (entity) allium_selection_select_entity(t->window->selection, entity, ALLIUM_SELECT_REPLACE);
}

/* The field report's crash: an agent_start's origin edited in the properties panel, Enter,
 * then Collision → Start Agents; a row's handler ran after a rebuild of the panel had
 * freed the row. Here Enter in the origin row rebuilds the panel during the row's commit;
 * then the old row's entry, kept alive as a focused entry may be, gets Enter again while
 * the focus moves to the 3D view and the agents start. The old entry must do nothing
 * (under AddressSanitizer a use of a freed row fails the test). */
gboolean step_inspector_rebuild(SelfTest *t)
{
    AlliumInspector *inspector = t->window->inspector;
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumSnapshot *snap = current(t);
    const char *moved = "160 128 24";
    int start = -1;
    for (int e = 0; snap && e < snap->input.input.entity_count && start < 0; e++)
        if (g_strcmp0(snap->input.input.entities[e].classname, "agent_start") == 0) start = e;
    if (!t->step_begun) {
        check(t, start >= 0, "the map has the agent_start");
        if (start < 0) return TRUE;
        allium_selection_select_entity(t->window->selection, snap->input.entity_ids[start],
                                       ALLIUM_SELECT_REPLACE);
        /* The agent_start got its class's default keys, and the panel explains them. */
        const char *tip = allium_inspector_get_key_tooltip(inspector, "hull");
        check(t,
              g_strcmp0(allium_inspector_get_value(inspector, "hull"), "stand") == 0 &&
                  g_strcmp0(allium_inspector_get_value(inspector, "count"), "1") == 0 && tip &&
                  strstr(tip, "agent box"),
              "the agent_start has the default hull and count of its definition, and the "
              "hull's tooltip its description (\"%s\")",
              tip ? tip : "");
        GtkWidget *entry = allium_inspector_get_editor(inspector, "origin");
        check(t, entry && GTK_IS_EDITABLE(entry), "the panel has an origin entry");
        if (!entry || !GTK_IS_EDITABLE(entry)) return TRUE;
        t->held_editor = g_object_ref(entry);
        gtk_widget_grab_focus(entry);
        gtk_editable_set_text(GTK_EDITABLE(entry), moved);
        gulong handler = g_signal_connect(doc, "changed", G_CALLBACK(reselect_cb), t);
        g_signal_emit_by_name(entry, "activate");
        g_signal_handler_disconnect(doc, handler);
        t->edits++;
        check(t,
              allium_inspector_get_editor(inspector, "origin") != entry &&
                  allium_document_can_undo(doc),
              "Enter wrote the origin, and the panel was rebuilt during the commit");
        return FALSE;
    }
    if (!compiled_current(t->window) || start < 0) return FALSE;
    check(t, g_strcmp0(allium_snapshot_entity_value(snap, start, "origin"), moved) == 0,
          "the compiled map has the new origin (\"%s\")",
          allium_snapshot_entity_value(snap, start, "origin"));
    /* The old entry: typed into, Enter, and the focus leaves for the 3D view as a menu
     * takes it. Nothing is written. */
    guint64 generation = allium_document_get_generation(doc);
    gtk_editable_set_text(GTK_EDITABLE(t->held_editor), "0 0 0");
    g_signal_emit_by_name(t->held_editor, "activate");
    gtk_widget_grab_focus(GTK_WIDGET(view_3d(t)));
    check(t, allium_document_get_generation(doc) == generation,
          "the old row's entry wrote nothing");
    g_clear_object(&t->held_editor);
    gboolean started = gtk_widget_activate_action(GTK_WIDGET(t->window), "win.agents-start", NULL);
    double agent[3] = {0};
    allium_collision_get_agent(t->window->collision, 0, agent);
    check(t,
          started && allium_collision_agent_count(t->window->collision) == 1 &&
              fabs(agent[0] - 160) < 1,
          "Start Agents spawns the agent at its new origin (%d agents, x %.1f)",
          allium_collision_agent_count(t->window->collision), agent[0]);
    check(t, g_strcmp0(allium_inspector_get_value(inspector, "origin"), moved) == 0,
          "the panel shows the new origin");
    shoot_and_compare(t, "inspector-rebuilt.png", NULL);
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.agents-stop", NULL);
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.agents-reset", NULL);
    allium_selection_clear(t->window->selection);
    return TRUE;
}

/* Starts phase PHASE of the walk: remembers when, and where the walker W was (if any). */
static void walk_phase(SelfTest *t, AlliumWalker *w, int phase)
{
    t->walk_phase = phase;
    t->walk_phase_us = g_get_monotonic_time();
    if (w) allium_walker_get_state(w, t->walk_from, NULL, NULL, NULL);
    t->walk_top = t->walk_from[2];
}

static gboolean walk_phase_over(SelfTest *t, double seconds)
{
    return g_get_monotonic_time() - t->walk_phase_us >= (gint64) (seconds * 1e6);
}

gboolean step_walk(SelfTest *t)
{
    AlliumView *view = view_3d(t);
    AlliumWalker *w = allium_view_get_walker(view);
    if (!t->step_begun) {
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.walk", NULL),
              "win.walk activated");
        w = allium_view_get_walker(view);
        check(t, w != NULL && allium_view_is_walking(view), "the 3D view walks");
        if (!w) return TRUE;
        /* W held: the agent walks the way the player start faces (+X). */
        walk_phase(t, w, 1);
        allium_view_simulate_key(view, GDK_KEY_w, TRUE);
        return FALSE;
    }
    if (!w) {
        check(t, FALSE, "walk mode ended by itself in phase %d", t->walk_phase);
        return TRUE;
    }
    AlliumSnapshot *snap = current(t);
    double origin[3], velocity[3];
    gboolean on_ground, crouched;
    allium_walker_get_state(w, origin, velocity, &on_ground, &crouched);
    t->walk_top = MAX(t->walk_top, origin[2]);
    g_autofree char *overlay = allium_walker_describe(w);

    if (t->walk_phase == 1) {
        if (!walk_phase_over(t, 1.0)) return FALSE;
        double moved = origin[0] - t->walk_from[0];
        int stand = al_world_find_hull(snap->world, "stand");
        check(t, moved > 64 && fabs(origin[1] - t->walk_from[1]) < 1,
              "holding W walked %.0f units along +X", moved);
        check(t, on_ground && !al_world_point_solid(snap->world, stand, origin),
              "on the ground and out of solid (origin %.1f %.1f %.1f)", origin[0], origin[1],
              origin[2]);
        double eye[3], yaw, pitch;
        allium_walker_get_eye(w, eye, &yaw, &pitch);
        const al_camera *cam = allium_view_get_camera(view);
        check(t, fabs(cam->position[0] - eye[0]) < 1e-6 && fabs(cam->position[2] - eye[2]) < 1e-6,
              "the camera is at the walker's eye");
        check(t, strstr(overlay, "stand") && strstr(overlay, "on ground"),
              "the overlay says so: \"%s\"", overlay);
        allium_view_simulate_key(view, GDK_KEY_w, FALSE);
        /* Ctrl held: it crouches. */
        allium_view_simulate_key(view, GDK_KEY_Control_L, TRUE);
        walk_phase(t, w, 2);
        return FALSE;
    }
    if (t->walk_phase == 2) {
        if (!walk_phase_over(t, 0.5)) return FALSE;
        check(t, crouched && strstr(overlay, "crouch") != NULL,
              "holding Ctrl crouches: \"%s\"", overlay);
        check(t, hypot(velocity[0], velocity[1]) < 1, "friction stopped the agent (%.1f units/s)",
              hypot(velocity[0], velocity[1]));
        shoot_and_compare(t, "walk.png", NULL);
        allium_view_simulate_key(view, GDK_KEY_Control_L, FALSE);
        /* Space: a jump, up and down again. */
        allium_view_simulate_key(view, GDK_KEY_space, TRUE);
        walk_phase(t, w, 3);
        return FALSE;
    }
    if (t->walk_phase == 3) {
        /* Released once in the air, so that it does not jump again on landing. */
        if (t->walk_top > t->walk_from[2] + 1) allium_view_simulate_key(view, GDK_KEY_space, FALSE);
        if (!walk_phase_over(t, 1.2)) return FALSE;
        check(t, t->walk_top > t->walk_from[2] + 16 && on_ground &&
                     fabs(origin[2] - t->walk_from[2]) < 0.5,
              "Space jumped %.0f units and landed", t->walk_top - t->walk_from[2]);
        check(t, !crouched, "the agent stood up again");
        allium_view_simulate_key(view, GDK_KEY_Escape, TRUE);
        check(t, !allium_view_is_walking(view), "Escape returns to editing");
        return TRUE;
    }
    return TRUE;
}

/* The window's key controller of PHASE (it offers the views what the focused widget
 * leaves alone, allium-window.c). */
static GtkEventController *window_keys(SelfTest *t, GtkPropagationPhase phase)
{
    GtkEventController *found = NULL;
    GListModel *controllers = gtk_widget_observe_controllers(GTK_WIDGET(t->window));
    for (guint i = 0; i < g_list_model_get_n_items(controllers) && !found; i++) {
        GtkEventController *c = g_list_model_get_item(controllers, i);
        if (GTK_IS_EVENT_CONTROLLER_KEY(c) &&
            gtk_event_controller_get_propagation_phase(c) == phase)
            found = c;
        g_object_unref(c);
    }
    g_object_unref(controllers);
    return found;
}

/* KEYVAL going down (or up) as it reaches the window in PHASE; whether it was taken. */
static gboolean window_key(SelfTest *t, GtkPropagationPhase phase, guint keyval, gboolean down)
{
    GtkEventController *keys = window_keys(t, phase);
    gboolean taken = FALSE;
    if (!keys) return FALSE;
    if (down)
        g_signal_emit_by_name(keys, "key-pressed", keyval, 0, 0, &taken);
    else
        g_signal_emit_by_name(keys, "key-released", keyval, 0, 0);
    return taken;
}

/* Keys reach the view under the pointer though another widget has the focus: W flies the
 * 3D view the pointer is over without a click first, and during a walk the arrow keys turn
 * the walker though a 2D view has the focus (there they would nudge the selection). The
 * keys are given to the window's controllers as GTK hands them on when the focused widget
 * leaves them alone; gui-input-test.py presses the real keys. */
gboolean step_keys_under_pointer(SelfTest *t)
{
    AlliumView *view = view_3d(t);
    al_camera *cam = allium_view_get_camera(view);
    if (!t->step_begun) {
        check(t, window_keys(t, GTK_PHASE_CAPTURE) && window_keys(t, GTK_PHASE_BUBBLE),
              "the window has key controllers in the capture and bubble phases");
        /* The focus on a button of the side panel; the pointer over the 3D view. */
        g_autoptr(GPtrArray) buttons = g_ptr_array_new();
        collect_widgets(GTK_WIDGET(t->window->inspector), GTK_TYPE_BUTTON, buttons);
        gboolean focused = buttons->len > 0 && gtk_widget_grab_focus(buttons->pdata[0]);
        check(t, focused, "a button of the side panel has the focus");
        allium_view_simulate_pointer(view, TRUE, gtk_widget_get_width(GTK_WIDGET(view)) / 2.0,
                                     gtk_widget_get_height(GTK_WIDGET(view)) / 2.0);
        memcpy(t->walk_from, cam->position, sizeof t->walk_from);
        check(t, window_key(t, GTK_PHASE_BUBBLE, GDK_KEY_w, TRUE),
              "W reaches the 3D view under the pointer");
        walk_phase(t, NULL, 1);
        return FALSE;
    }
    if (t->walk_phase == 1) {
        if (!walk_phase_over(t, 0.5)) return FALSE;
        window_key(t, GTK_PHASE_BUBBLE, GDK_KEY_w, FALSE);
        double f[3], r[3], u[3], moved = 0;
        al_camera_basis(cam, f, r, u);
        for (int k = 0; k < 3; k++) moved += (cam->position[k] - t->walk_from[k]) * f[k];
        check(t, moved > 32, "holding W flew the camera %.0f units forward, unclicked", moved);
        GtkWidget *focus = gtk_window_get_focus(GTK_WINDOW(t->window));
        check(t, focus && GTK_IS_BUTTON(focus), "and the button kept the focus");
        /* Away from the view, W is not the view's. */
        allium_view_simulate_pointer(view, FALSE, 0, 0);
        check(t, !window_key(t, GTK_PHASE_BUBBLE, GDK_KEY_w, TRUE),
              "with the pointer elsewhere W is left alone");
        window_key(t, GTK_PHASE_BUBBLE, GDK_KEY_w, FALSE);
        /* A walk, and then the focus in the top view, as a click there to draw gives it. */
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.walk", NULL),
              "win.walk activated");
        AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
        gboolean moved_focus = top && gtk_widget_child_focus(GTK_WIDGET(top), GTK_DIR_TAB_FORWARD);
        GtkWidget *now = gtk_window_get_focus(GTK_WINDOW(t->window));
        check(t, moved_focus && now && gtk_widget_is_ancestor(now, GTK_WIDGET(top)),
              "the top view has the focus during the walk");
        AlliumWalker *w = allium_view_get_walker(view);
        double eye[3], yaw0 = 0, yaw1 = 0, pitch;
        if (w) allium_walker_get_eye(w, eye, &yaw0, &pitch);
        gboolean taken = window_key(t, GTK_PHASE_CAPTURE, GDK_KEY_Left, TRUE);
        window_key(t, GTK_PHASE_CAPTURE, GDK_KEY_Left, FALSE);
        if (w) allium_walker_get_eye(w, eye, &yaw1, &pitch);
        check(t, w && taken && yaw1 > yaw0 + 1,
              "the Left arrow turns the walker though the top view has the focus (yaw %.0f -> "
              "%.0f)",
              yaw0, yaw1);
        check(t,
              window_key(t, GTK_PHASE_CAPTURE, GDK_KEY_Escape, TRUE) &&
                  !allium_view_is_walking(view),
              "and Escape ends the walk");
        return TRUE;
    }
    return TRUE;
}

/* A pool of water in the hall (a box of *water1, as a designer draws one): once compiled, a
 * test box dropped into it with the test-box tool stands on the floor under the water, and
 * its readout names the water. The pool is undone again. */
gboolean step_liquid(SelfTest *t)
{
    AlliumDocument *doc = allium_window_get_document(t->window);
    AlliumCollision *c = t->window->collision;
    const double lo[3] = {300, 150, 0}, hi[3] = {420, 260, 48};
    if (!t->step_begun) {
        gint64 id = 0;
        check(t, allium_document_add_box(doc, lo, hi, "*water1", &id, NULL),
              "a box of *water1 added to the hall");
        allium_collision_clear_boxes(c);
        t->phase = 0;
        return FALSE;
    }
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    if (!snap || !snap->world || snap->generation != allium_document_get_generation(doc))
        return FALSE;
    if (t->phase == 0) {
        check(t, al_world_liquid_count(snap->world) >= 1,
              "the compiled world has the pool (%d liquid brushes)",
              al_world_liquid_count(snap->world));
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "testbox");
        AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
        double centre[3] = {360, 205, 0}, cx, cy;
        gboolean seen = top && to_widget(top, centre, &cx, &cy);
        check(t, seen, "the pool is in the top view");
        if (seen) allium_view_simulate_drag(top, cx, cy, cx, cy, 0, 0);
        t->phase = 1;
        return FALSE;
    }
    double o[3] = {0, 0, 0};
    gboolean placed = allium_collision_box_count(c) == 1 && allium_collision_get_box(c, 0, o, NULL);
    g_autofree char *text = placed ? allium_collision_describe_box(c, 0) : g_strdup("");
    check(t, placed && o[2] < hi[2] && strstr(text, "in water") != NULL,
          "a test box dropped into the pool stands in it and says so (z %g): \"%s\"", o[2], text);
    shoot_and_compare(t, "liquid.png", NULL);
    allium_collision_clear_boxes(c);
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.tool", "s", "select");
    check(t, allium_document_undo(doc, NULL), "the pool undone");
    return TRUE;
}
