/* The GUI self-test's entity steps: the inspector's editors that the entity definitions
 * give a light (quake.fgd: Light and Switchable), and the entity browser.
 *
 * On the light the earlier steps placed: the "Start off" check button of spawnflags sets
 * bit 1 of the document's value; "style", which the light lacks, is listed greyed with its
 * default as a drop-down of its named choices, and picking "Gentle pulse" adds it as 5 in
 * one undoable step; a targetname given to the light is then offered by the list beside
 * the targetname row. Each change is one undoable step (the editing steps' undo takes them
 * back).
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-entity-definitions.h"
#include "allium-preferences.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

static AlliumSnapshot *current(SelfTest *t)
{
    return allium_document_get_snapshot(allium_window_get_document(t->window));
}

/* The value of KEY of the entity with row ENTITY in the current snapshot. */
static const char *entity_value(SelfTest *t, gint64 entity, const char *key)
{
    AlliumSnapshot *snap = current(t);
    int e = allium_snapshot_entity_index(snap, entity);
    return e >= 0 ? allium_snapshot_entity_value(snap, e, key) : NULL;
}

static gint64 typed_light = -1;

gboolean step_typed_properties(SelfTest *t)
{
    AlliumInspector *inspector = t->window->inspector;
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        AlliumSnapshot *snap = current(t);
        const al_input *in = &snap->input.input;
        typed_light = -1;
        for (int e = in->entity_count - 1; e > 0 && typed_light < 0; e--)
            if (g_strcmp0(in->entities[e].classname, "light") == 0)
                typed_light = snap->input.entity_ids[e];
        check(t, typed_light >= 0, "the map has the placed light");
        /* Every point entity's box is its class's size from the definitions. */
        int sized = 0, wrong = 0;
        for (int e = 1; snap->scene && e < in->entity_count; e++) {
            const al_entdef_class *cls =
                al_entdefs_find(&current(t)->definitions->defs, in->entities[e].classname);
            const char *origin = allium_snapshot_entity_value(snap, e, "origin");
            double lo[3], hi[3], o[3];
            if (!cls || !cls->has_size || !origin ||
                sscanf(origin, "%lf %lf %lf", &o[0], &o[1], &o[2]) != 3 ||
                !al_scene_entity_bounds(snap->scene, e, lo, hi))
                continue;
            sized++;
            for (int k = 0; k < 3; k++)
                wrong += lo[k] != o[k] + cls->mins[k] || hi[k] != o[k] + cls->maxs[k];
        }
        check(t, sized > 0 && wrong == 0,
              "the %d point entities whose class has a size are drawn as boxes of that size",
              sized);
        if (typed_light < 0) return TRUE;
        allium_selection_set_items(t->window->selection, NULL, 0, &typed_light, 1);
        GtkCheckButton *start_off = allium_inspector_get_flag_button(inspector, "spawnflags", 1);
        check(t, start_off && !gtk_check_button_get_active(start_off),
              "the light's spawnflags row has an unchecked check button for flag 1");
        if (!start_off) return TRUE;
        const char *label = gtk_check_button_get_label(start_off);
        check(t, label && strstr(label, "Start off"), "named from the definitions (\"%s\")",
              label ? label : "");
        gtk_check_button_set_active(start_off, TRUE);
        t->edits++;
        t->phase = 0;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    switch (t->phase) {
    case 0: {
        check(t, g_strcmp0(entity_value(t, typed_light, "spawnflags"), "1") == 0,
              "checking it wrote spawnflags 1 (\"%s\")",
              entity_value(t, typed_light, "spawnflags"));
        g_autofree char *label = allium_document_dup_undo_label(doc, FALSE);
        check(t, label && *label, "as one undoable step (\"%s\")", label ? label : "");
        const al_entdef_property *style = al_entdef_find_property(
            al_entdefs_find(&current(t)->definitions->defs, "light"), "style");
        check(t,
              style && entity_value(t, typed_light, "style") == NULL &&
                  allium_inspector_is_absent(inspector, "style"),
              "style, which the light lacks, is listed from its class's definition");
        check(t,
              style && g_strcmp0(allium_inspector_get_value(inspector, "style"),
                                 style->default_value) == 0,
              "showing the definition's default (\"%s\")",
              allium_inspector_get_value(inspector, "style"));
        t->phase = 1;
        return FALSE;
    }
    case 1: {
        GtkWidget *editor = allium_inspector_get_editor(inspector, "style");
        check(t, editor && GTK_IS_DROP_DOWN(editor), "style is edited with a drop-down");
        if (!editor || !GTK_IS_DROP_DOWN(editor)) return TRUE;
        check(t, gtk_widget_has_css_class(editor, "dim-label"), "greyed while the light lacks it");
        g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->window), "32-absent-keys.png");
        check(t, shot != NULL, "a screenshot of the inspector with the class's other keys");
        const char *tip = gtk_widget_get_tooltip_text(editor);
        check(t, tip && strstr(tip, "Light animation"), "whose tooltip is the key's description");
        GListModel *items = gtk_drop_down_get_model(GTK_DROP_DOWN(editor));
        guint gentle = G_MAXUINT;
        for (guint i = 0; i < g_list_model_get_n_items(items); i++) {
            g_autoptr(GtkStringObject) item = g_list_model_get_item(items, i);
            if (strstr(gtk_string_object_get_string(item), "Gentle pulse")) gentle = i;
        }
        check(t, gentle != G_MAXUINT, "listing the choice \"Gentle pulse\"");
        if (gentle == G_MAXUINT) return TRUE;
        gtk_drop_down_set_selected(GTK_DROP_DOWN(editor), gentle);
        t->edits++;
        t->phase = 2;
        return FALSE;
    }
    case 2:
        check(t, g_strcmp0(entity_value(t, typed_light, "style"), "5") == 0,
              "choosing it wrote style 5 (\"%s\")", entity_value(t, typed_light, "style"));
        check(t, !allium_inspector_is_absent(inspector, "style"), "a key of the light now");
        check(t, allium_document_undo(doc, NULL), "undo");
        t->phase = 3;
        return FALSE;
    case 3:
        check(t,
              entity_value(t, typed_light, "style") == NULL &&
                  g_strcmp0(entity_value(t, typed_light, "spawnflags"), "1") == 0 &&
                  allium_inspector_is_absent(inspector, "style"),
              "one undo takes the added style away, and only it");
        check(t, allium_document_redo(doc, NULL), "redo");
        t->phase = 4;
        return FALSE;
    case 4:
        check(t, g_strcmp0(entity_value(t, typed_light, "style"), "5") == 0,
              "redo gives style 5 back (\"%s\")", entity_value(t, typed_light, "style"));
        check(t, allium_inspector_edit(inspector, "targetname", "lamp1"), "a targetname added");
        t->edits++;
        t->phase = 5;
        return FALSE;
    default: {
        GtkDropDown *names = allium_inspector_get_name_list(inspector, "targetname");
        gboolean listed = FALSE;
        GListModel *items = names ? gtk_drop_down_get_model(names) : NULL;
        for (guint i = 0; items && i < g_list_model_get_n_items(items); i++) {
            g_autoptr(GtkStringObject) item = g_list_model_get_item(items, i);
            listed |= g_str_equal(gtk_string_object_get_string(item), "lamp1");
        }
        check(t, listed, "the targetname row lists the map's names, lamp1 among them");
        allium_selection_clear(t->window->selection);
        return TRUE;
    }
    }
}

/* The angle dial. Its pointer rule against a closed form at every whole degree; then on
 * the player start a drag towards north-north-west writes 90 (15-degree steps) as one
 * step, the same drag with Shift 100, and the Up and Down buttons -1 and -2 (drawn as an
 * arrow); on a light, whose "angle" is a spotlight's cone and has no dial, the dial of
 * "mangle" sets its first number (yaw, pitch, roll). */
static struct {
    gint64 start, light;
    char *angle_before;
} dial_test;

/* Where the pointer is on DIAL for DEGREES, at 0.8 of its radius. */
static void dial_point(AlliumAngleDial *dial, double degrees, double *x, double *y)
{
    double w = gtk_widget_get_width(GTK_WIDGET(dial)), h = gtk_widget_get_height(GTK_WIDGET(dial));
    double r = MIN(w, h) / 2 * 0.8, a = degrees * G_PI / 180;
    *x = w / 2 + r * cos(a);
    *y = h / 2 - r * sin(a);
}

/* Drags DIAL from east to DEGREES with modifier STATE and lets go. */
static void dial_drag(AlliumAngleDial *dial, double degrees, GdkModifierType state)
{
    double x, y;
    dial_point(dial, 0, &x, &y);
    allium_angle_dial_drag_to(dial, x, y, state, FALSE);
    dial_point(dial, degrees, &x, &y);
    allium_angle_dial_drag_to(dial, x, y, state, TRUE);
}

gboolean step_angle_dial(SelfTest *t)
{
    AlliumInspector *inspector = t->window->inspector;
    AlliumDocument *doc = allium_window_get_document(t->window);
    if (!t->step_begun) {
        /* The rule: a pointer at whole degree A (0..359) on a 30-pixel dial points at A
         * with Shift, and at the nearest multiple of 15 (mod 360) without. */
        int wrong = 0;
        for (int a = 0; a < 360; a++) {
            double x = 15 + 12 * cos(a * G_PI / 180), y = 15 - 12 * sin(a * G_PI / 180);
            int snapped = (a + 7) / 15 * 15 % 360;
            wrong += allium_angle_dial_angle_at(30, 30, x, y, TRUE) != a ||
                     allium_angle_dial_angle_at(30, 30, x, y, FALSE) != snapped;
        }
        check(t, wrong == 0, "the dial's angle at every whole degree (%d wrong)", wrong);
        AlliumSnapshot *snap = current(t);
        const al_input *in = &snap->input.input;
        dial_test.start = dial_test.light = -1;
        for (int e = 1; e < in->entity_count; e++) {
            if (g_strcmp0(in->entities[e].classname, "info_player_start") == 0)
                dial_test.start = snap->input.entity_ids[e];
            if (g_strcmp0(in->entities[e].classname, "light") == 0)
                dial_test.light = snap->input.entity_ids[e];
        }
        check(t, dial_test.start >= 0 && dial_test.light >= 0,
              "the map has a player start and a light");
        if (dial_test.start < 0 || dial_test.light < 0) return TRUE;
        g_free(dial_test.angle_before);
        dial_test.angle_before = g_strdup(entity_value(t, dial_test.start, "angle"));
        allium_selection_set_items(t->window->selection, NULL, 0, &dial_test.start, 1);
        t->phase = 0;
        return FALSE;
    }
    if (!compiled_current(t->window)) return FALSE;
    AlliumAngleDial *dial = allium_inspector_get_angle_dial(inspector, "angle");
    /* A dial of rows made again for the last edit is dragged once it has its size (a
     * slow machine may poll the step before the panel is laid out). */
    if (dial && gtk_widget_get_width(GTK_WIDGET(dial)) == 0) return FALSE;
    switch (t->phase) {
    case 0:
        if (!settle(t)) return FALSE;
        check(t, dial && gtk_widget_get_width(GTK_WIDGET(dial)) > 0,
              "the player start's angle has a dial beside its number");
        if (!dial) return TRUE;
        dial_drag(dial, 97, 0);
        t->edits++;
        t->phase = 1;
        return FALSE;
    case 1: {
        check(t, g_strcmp0(entity_value(t, dial_test.start, "angle"), "90") == 0,
              "dragging it to 97 degrees wrote angle 90 (\"%s\")",
              entity_value(t, dial_test.start, "angle"));
        g_autofree char *label = allium_document_dup_undo_label(doc, FALSE);
        check(t, label && *label, "as one undoable step (\"%s\")", label ? label : "");
        if (!dial) return TRUE;
        check(t, allium_angle_dial_get_angle(dial) == 90, "the rebuilt dial shows 90");
        dial_drag(dial, 100, GDK_SHIFT_MASK);
        t->edits++;
        t->phase = 2;
        return FALSE;
    }
    case 2: {
        check(t, g_strcmp0(entity_value(t, dial_test.start, "angle"), "100") == 0,
              "with Shift, 100 (\"%s\")", entity_value(t, dial_test.start, "angle"));
        GtkButton *up = allium_inspector_get_vertical_button(inspector, "angle", -1);
        check(t, up != NULL, "an Up button beside the dial");
        if (!up) return TRUE;
        g_signal_emit_by_name(up, "clicked");
        t->edits++;
        t->phase = 3;
        return FALSE;
    }
    case 3: {
        check(t, g_strcmp0(entity_value(t, dial_test.start, "angle"), "-1") == 0,
              "Up wrote angle -1 (\"%s\")", entity_value(t, dial_test.start, "angle"));
        check(t, dial && allium_angle_dial_get_angle(dial) == -1, "the dial shows up");
        if (!settle(t)) return FALSE;
        g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->window), "32-angle-dial.png");
        check(t, shot != NULL, "a screenshot of the dial showing up");
        GtkButton *down = allium_inspector_get_vertical_button(inspector, "angle", -2);
        if (!down) return TRUE;
        g_signal_emit_by_name(down, "clicked");
        t->edits++;
        t->phase = 4;
        return FALSE;
    }
    case 4:
        check(t, g_strcmp0(entity_value(t, dial_test.start, "angle"), "-2") == 0,
              "Down wrote angle -2 (\"%s\")", entity_value(t, dial_test.start, "angle"));
        allium_selection_set_items(t->window->selection, NULL, 0, &dial_test.light, 1);
        t->phase = 5;
        return FALSE;
    case 5:
        check(t, allium_inspector_get_editor(inspector, "angle") && !dial,
              "a light's angle (a spotlight's cone) has a number but no dial");
        check(t, allium_inspector_edit(inspector, "mangle", "0 -30 0"), "a mangle added");
        t->edits++;
        t->phase = 6;
        return FALSE;
    case 6: {
        AlliumAngleDial *yaw = allium_inspector_get_angle_dial(inspector, "mangle");
        if (yaw && gtk_widget_get_width(GTK_WIDGET(yaw)) == 0) return FALSE;
        check(t, yaw && allium_angle_dial_get_angle(yaw) == 0, "mangle has a dial showing 0");
        if (!yaw) return TRUE;
        if (!settle(t)) return FALSE;
        dial_drag(yaw, 182, 0);
        t->edits++;
        t->phase = 7;
        return FALSE;
    }
    default:
        check(t, g_strcmp0(entity_value(t, dial_test.light, "mangle"), "180 -30 0") == 0,
              "its drag to 182 degrees set the yaw, first of a light's mangle (\"%s\")",
              entity_value(t, dial_test.light, "mangle"));
        allium_selection_clear(t->window->selection);
        return TRUE;
    }
}

/* The entity browser: its search, and a class dropped into the top view standing on the
 * first surface below the drop (a box sweep from its origin finds the floor within one
 * unit, and its box is in no brush). */
static struct {
    gint64 placed;
    double at[2]; /* x, y where it should stand */
} dropped;

gboolean step_entity_browser(SelfTest *t)
{
    AlliumEntityBrowser *browser = t->window->entity_browser;
    AlliumSnapshot *snap = current(t);
    const al_input *in = &snap->input.input;
    const al_entdefs *defs = &current(t)->definitions->defs;
    if (!t->step_begun) {
        int listed = 0;
        for (int i = 0; i < defs->class_count; i++)
            listed += defs->classes[i].kind != AL_ENTDEF_BASE &&
                      strcmp(defs->classes[i].name, "worldspawn") != 0;
        allium_entity_browser_set_search(browser, "");
        g_autoptr(GPtrArray) all = allium_entity_browser_dup_shown(browser);
        gboolean sorted = TRUE;
        for (guint i = 1; i < all->len; i++) sorted &= strcmp(all->pdata[i - 1], all->pdata[i]) < 0;
        check(t, (int) all->len == listed && sorted,
              "the entity browser lists the %d point and brush classes by name (%u shown)", listed,
              all->len);
        allium_entity_browser_set_search(browser, "OGRE");
        g_autoptr(GPtrArray) found = allium_entity_browser_dup_shown(browser);
        gboolean match = found->len > 0;
        for (guint i = 0; i < found->len; i++) {
            const al_entdef_class *cls = al_entdefs_find(defs, found->pdata[i]);
            g_autofree char *about = g_utf8_strdown(cls->description, -1);
            match &= strstr(cls->name, "ogre") || strstr(about, "ogre");
        }
        gboolean ogre = FALSE;
        for (guint i = 0; i < found->len; i++) ogre |= g_str_equal(found->pdata[i], "monster_ogre");
        check(t, match && ogre,
              "searching \"OGRE\" keeps the %u classes that name it, "
              "monster_ogre among them",
              found->len);
        allium_entity_browser_set_search(browser, "");
        gtk_stack_set_visible_child_name(t->window->sidebar_stack, "entities");
        /* Dropped over the middle of a world brush, seen from above. */
        double lo[3], hi[3], centre[3], x, y;
        gint64 brush = -1;
        for (int b = 0; b < in->brush_count && brush < 0; b++)
            if (in->brushes[b].entity == 0 && row_bounds(t, snap->input.brush_ids[b], lo, hi))
                brush = snap->input.brush_ids[b];
        for (int k = 0; k < 3; k++) centre[k] = 0.5 * (lo[k] + hi[k]);
        AlliumView *top = view_of_kind(t, AL_VIEW_TOP);
        check(t, brush >= 0 && to_widget(top, centre, &x, &y), "a world brush is in the top view");
        if (brush < 0) return TRUE;
        t->entities_before = in->entity_count;
        double grid = allium_preferences_get_grid_size(allium_preferences_get_default());
        dropped.at[0] = al_snap(centre[0], grid), dropped.at[1] = al_snap(centre[1], grid);
        check(t, allium_view_place_entity(top, "item_shells", x, y),
              "item_shells dropped into the top view");
        guint ne;
        const gint64 *rows = allium_selection_get_entities(t->window->selection, &ne);
        dropped.placed = ne == 1 ? rows[0] : -1;
        check(t, dropped.placed >= 0, "and selected");
        t->edits++;
        return FALSE;
    }
    if (!compiled_current(t->window) || in->entity_count != t->entities_before + 1) return FALSE;
    const al_entdef_class *cls = al_entdefs_find(defs, "item_shells");
    const char *origin = entity_value(t, dropped.placed, "origin");
    double o[3];
    gboolean parsed =
        cls && cls->has_size && origin && sscanf(origin, "%lf %lf %lf", &o[0], &o[1], &o[2]) == 3;
    check(t, parsed && o[0] == dropped.at[0] && o[1] == dropped.at[1],
          "it stands on the grid where it was dropped (origin \"%s\")", origin ? origin : "");
    if (!parsed || !snap->world) return TRUE;
    /* The class's box let fall from half a unit above comes to rest at the origin. */
    al_trace fall;
    double up[3] = {o[0], o[1], o[2] + 0.5}, down[3] = {o[0], o[1], o[2] - 1};
    al_world_trace_box(snap->world, cls->mins, cls->maxs, up, down, &fall);
    check(t, !fall.start_solid && fall.hit && fabs(fall.contact[2] - o[2]) <= 1.0 / 16,
          "on the first surface below it, not inside a brush (a box let fall from above "
          "rests at z %g, the origin's %g)",
          fall.contact[2], o[2]);
    g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(t->window), "32-entity-browser.png");
    check(t, shot != NULL, "a screenshot of the window with the entity browser");
    gtk_stack_set_visible_child_name(t->window->sidebar_stack, "properties");
    allium_selection_clear(t->window->selection);
    return TRUE;
}
