/* GUI self-test step for the View menu's toggles: they start as the preferences say (the
 * 2D views without every light's reach), a toggle changes the preference and what the
 * views draw, the settings file keeps it for the next start, and a new window shows what
 * the last one showed.
 */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-preferences.h"
#include "allium-view-private.h"

static gboolean pref(const char *name)
{
    gboolean on = FALSE;
    g_object_get(allium_preferences_get_default(), name, &on, NULL);
    return on;
}

static gboolean window_flag(AlliumWindow *window, const char *name)
{
    gboolean on = FALSE;
    g_object_get(window, name, &on, NULL);
    return on;
}

/* Whether VIEW was given overlay BIT by its window. */
static gboolean view_has(AlliumView *view, unsigned bit)
{
    return (view->overlays & bit) != 0;
}

static void mark_top(SelfTest *t, AlliumView *top)
{
    t->frames_mark = allium_view_get_frames_drawn(top);
    allium_view_queue_render(top);
    t->settled = FALSE;
}

/* The saved settings file's boolean KEY (-1: not there). */
static int saved(GKeyFile *file, const char *key)
{
    GError *error = NULL;
    gboolean v = g_key_file_get_boolean(file, "editor", key, &error);
    if (error) {
        g_error_free(error);
        return -1;
    }
    return v;
}

/* A second window opened now takes the toggles; toggling there reaches the first. */
static void check_new_window(SelfTest *t)
{
    AlliumWindow *fresh = allium_window_new(GTK_APPLICATION(t->app));
    check(t,
          window_flag(fresh, "light-radii-2d") && !window_flag(fresh, "show-tools") &&
              window_flag(fresh, "show-entities") && !window_flag(fresh, "light-radii-3d"),
          "a new window shows the light radii in 2D and no tool brushes, as the last one did");
    int radii_2d = 0, radii_3d = 0, tools = 0;
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
        AlliumView *view = allium_window_get_view(fresh, i);
        gboolean flat = allium_view_get_kind(view) != AL_VIEW_3D;
        if (!view_has(view, AL_OVERLAY_LIGHT_RADII)) continue;
        if (flat)
            radii_2d++;
        else
            radii_3d++;
    }
    for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++)
        tools += view_has(allium_window_get_view(fresh, i), AL_OVERLAY_TOOLS);
    check(t, radii_2d == 3 && radii_3d == 0 && tools == 0,
          "its 2D views draw every light's reach and its 3D view does not (%d of 3 2D views, "
          "%d 3D), no view draws tool brushes (%d)",
          radii_2d, radii_3d, tools);
    /* A view switched to 3D follows the 3D toggle. */
    AlliumView *top = allium_window_get_view(fresh, 1);
    allium_view_set_kind(top, AL_VIEW_3D);
    check(t, !view_has(top, AL_OVERLAY_LIGHT_RADII),
          "a 2D view switched to 3D takes the 3D view's light radii toggle (off)");
    allium_view_set_kind(top, AL_VIEW_TOP);
    check(t, view_has(top, AL_OVERLAY_LIGHT_RADII), "and back to top, the 2D one (on)");
    gtk_widget_activate_action(GTK_WIDGET(fresh), "win.show-tools", NULL);
    check(t,
          pref("show-tools") && window_flag(t->window, "show-tools") &&
              view_has(allium_window_get_view(t->window, 1), AL_OVERLAY_TOOLS),
          "tool brushes turned on in the new window come back in the first one too");
    gtk_window_destroy(GTK_WINDOW(fresh));
}

gboolean step_view_toggles(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP), *v3d = view_3d(t);
    if (!top || !v3d) {
        check(t, FALSE, "the window has a top and a 3D view");
        return TRUE;
    }
    if (!t->step_begun) {
        t->phase = 0;
        check(t,
              !pref("light-radii-2d") && !pref("light-radii-3d") &&
                  !window_flag(t->window, "light-radii-2d"),
              "light radii are off by default, in the preferences and the window");
        check(t, !view_has(top, AL_OVERLAY_LIGHT_RADII) && view_has(top, AL_OVERLAY_ENTITIES),
              "the top view draws the entities without every light's reach");
        allium_selection_clear(t->window->selection);
        mark_top(t, top);
        return FALSE;
    }
    if (allium_view_get_frames_drawn(top) <= t->frames_mark || !settle(t)) return FALSE;

    if (t->phase == 0) {
        t->radii_off = screenshot(t, GTK_WIDGET(t->window), "13b-light-radii-off.png");
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.light-radii-2d", NULL),
              "win.light-radii-2d activated");
        check(t, pref("light-radii-2d") && !pref("light-radii-3d"),
              "the preference follows the 2D light radii toggle");
        int radii_2d = 0;
        for (int i = 0; i < ALLIUM_WINDOW_VIEW_COUNT; i++) {
            AlliumView *view = allium_window_get_view(t->window, i);
            if (allium_view_get_kind(view) != AL_VIEW_3D)
                radii_2d += view_has(view, AL_OVERLAY_LIGHT_RADII);
        }
        check(t, radii_2d == 3 && !view_has(v3d, AL_OVERLAY_LIGHT_RADII),
              "the three 2D views draw every light's reach, the 3D view not (%d)", radii_2d);
        t->phase = 1;
        mark_top(t, top);
        return FALSE;
    }

    g_autoptr(GdkTexture) on = screenshot(t, GTK_WIDGET(t->window), "13c-light-radii-2d.png");
    double f = changed_fraction(t->radii_off, on, GTK_WIDGET(top), GTK_WIDGET(t->window));
    check(t, f > 0.001, "the lights' circles appear in the top view (%.2f%% of its pixels)",
          f * 100);
    g_clear_object(&t->radii_off);

    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.show-tools", NULL);
    check(t, !pref("show-tools"), "the preference follows the tool brushes toggle (off)");
    GError *error = NULL;
    check(t, allium_preferences_save(allium_preferences_get_default(), &error),
          "settings saved%s%s", error ? ": " : "", error ? error->message : "");
    g_clear_error(&error);
    g_autofree char *path =
        g_build_filename(g_get_user_config_dir(), "allium", "settings.ini", NULL);
    g_autoptr(GKeyFile) file = g_key_file_new();
    check(t, g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, NULL), "%s read", path);
    check(t,
          saved(file, "light-radii-2d") == 1 && saved(file, "light-radii-3d") == 0 &&
              saved(file, "show-tools") == 0 && saved(file, "show-entities") == 1 &&
              saved(file, "lighting") == 1,
          "the settings file keeps the toggles for the next start (2D radii %d, 3D radii %d, "
          "tools %d)",
          saved(file, "light-radii-2d"), saved(file, "light-radii-3d"), saved(file, "show-tools"));

    check_new_window(t);
    /* Back as the later steps expect them. */
    gtk_widget_activate_action(GTK_WIDGET(t->window), "win.light-radii-2d", NULL);
    check(t, !pref("light-radii-2d") && !view_has(top, AL_OVERLAY_LIGHT_RADII),
          "the 2D light radii off again");
    return TRUE;
}

/* Faint textures in the 2D views (View menu, off by default, kept in the preferences):
 * turned on, the top view draws textured faces (its last frame's stats) and its picture
 * changes; the 3D view is as before; turned off again, the top view draws none. */
gboolean step_faint_textures(SelfTest *t)
{
    AlliumView *top = view_of_kind(t, AL_VIEW_TOP), *v3d = view_3d(t);
    if (!top || !v3d) {
        check(t, FALSE, "the window has a top and a 3D view");
        return TRUE;
    }
    if (!t->step_begun) {
        t->phase = 0;
        check(t, !pref("textures-2d") && !window_flag(t->window, "textures-2d"),
              "faint textures in 2D views are off by default");
        allium_selection_clear(t->window->selection);
        mark_top(t, top);
        return FALSE;
    }
    if (allium_view_get_frames_drawn(top) <= t->frames_mark || !settle(t)) return FALSE;
    al_draw_stats st;
    allium_view_get_last_stats(top, &st);
    if (t->phase == 0) {
        check(t, !st.textured, "the top view draws no texture");
        t->radii_off = screenshot(t, GTK_WIDGET(t->window), "13d-textures-2d-off.png");
        check(t, gtk_widget_activate_action(GTK_WIDGET(t->window), "win.textures-2d", NULL),
              "win.textures-2d activated");
        check(t, pref("textures-2d") && pref("textures"),
              "the preference follows it, the 3D view's textures stay on");
        t->phase = 1;
        mark_top(t, top);
        return FALSE;
    }
    if (t->phase == 1) {
        check(t, st.textured, "the top view draws its faces' textures");
        g_autoptr(GdkTexture) on = screenshot(t, GTK_WIDGET(t->window), "13e-textures-2d.png");
        double f = changed_fraction(t->radii_off, on, GTK_WIDGET(top), GTK_WIDGET(t->window));
        check(t, f > 0.05, "faintly, under the outlines (%.1f%% of its pixels changed)", f * 100);
        g_clear_object(&t->radii_off);
        gtk_widget_activate_action(GTK_WIDGET(t->window), "win.textures-2d", NULL);
        check(t, !pref("textures-2d"), "off again");
        t->phase = 2;
        mark_top(t, top);
        return FALSE;
    }
    check(t, !st.textured, "the top view draws no texture again");
    return TRUE;
}
