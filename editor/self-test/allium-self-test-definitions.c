/* Self-test steps: the entity definitions a map names, and the Preferences' applied at
 * once. A map whose worldspawn names a definition file beside it ("_tb_def"
 * "external:defs/mod.fgd") opens with that file's classes in the entity browser, its
 * entity drawn at its class's size and typed by its class's keys, and the file's bad
 * definition in the problems (file and line); the Preferences' files and a change of the
 * key (undoable) change the browser and the problems without a restart. */
#include "allium-config.h"

#include "allium-self-test-private.h"

#include "allium-entity-browser.h"
#include "allium-inspector.h"
#include "allium-missing-texture.h"
#include "allium-preferences.h"

#include <string.h>

/* Line 3 is a definition without a name: reported and skipped. */
static const char MOD_FGD[] =
    "@PointClass size(-20 -20 -20, 20 20 20) color(0 200 255) = selftest_orb : \"An orb\"\n"
    "[ radius(integer) : \"Radius\" : 5 : \"How big the orb is\" ]\n"
    "@PointClass size(-1 -1 -1, 1 1 1) = : \"a definition without a name\" []\n";
static const char OTHER_FGD[] =
    "@PointClass size(-8 -8 -8, 8 8 8) = selftest_other : \"From the other file\" []\n";
static const char PREF_FGD[] =
    "@PointClass size(-4 -4 -4, 4 4 4) = selftest_pref : \"From the Preferences\" []\n";

/* One brush of the map: the box LO..HI in the Valve 220 format, every face MATERIAL. */
static void append_box(GString *map, const int lo[3], const int hi[3], const char *material)
{
    const int x0 = lo[0], y0 = lo[1], z0 = lo[2], x1 = hi[0], y1 = hi[1], z1 = hi[2];
    const int planes[6][9] = {
        {x1, y0, z1, x1, y0, z0, x0, y0, z0}, {x1, y1, z1, x1, y1, z0, x1, y0, z0},
        {x0, y1, z1, x0, y1, z0, x1, y1, z0}, {x0, y0, z1, x0, y0, z0, x0, y1, z0},
        {x0, y0, z0, x1, y0, z0, x1, y1, z0}, {x1, y1, z1, x1, y0, z1, x0, y0, z1},
    };
    static const char *const axes[6] = {
        "[ 1 0 0 0 ] [ 0 0 -1 0 ]", "[ 0 1 0 0 ] [ 0 0 -1 0 ]", "[ 1 0 0 0 ] [ 0 0 -1 0 ]",
        "[ 0 1 0 0 ] [ 0 0 -1 0 ]", "[ 1 0 0 0 ] [ 0 -1 0 0 ]", "[ 1 0 0 0 ] [ 0 -1 0 0 ]",
    };
    g_string_append(map, "{\n");
    for (int f = 0; f < 6; f++) {
        const int *p = planes[f];
        g_string_append_printf(map, "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s %s 0 1 1\n", p[0],
                               p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], material, axes[f]);
    }
    g_string_append(map, "}\n");
}

/* A sealed room (512 x 384 x 256 inside) of textures no WAD holds, whose worldspawn names
 * defs/mod.fgd, with the player start facing the far wall and an orb of mod.fgd's class. */
static char *named_map(void)
{
    GString *map = g_string_new("{\n\"classname\" \"worldspawn\"\n\"mapversion\" \"220\"\n"
                                "\"_tb_def\" \"external:defs/mod.fgd\"\n");
    static const int slabs[6][6] = {
        {-16, -16, -16, 528, 400, 0}, {-16, -16, 256, 528, 400, 272}, {-16, -16, 0, 0, 400, 256},
        {512, -16, 0, 528, 400, 256}, {0, -16, 0, 512, 0, 256},       {0, 384, 0, 512, 400, 256},
    };
    static const char *const materials[6] = {"floor_missing", "ceiling_gone", "wall_nowhere",
                                             "far_wall_lost", "wall_nowhere", "wall_nowhere"};
    for (int b = 0; b < 6; b++) append_box(map, slabs[b], slabs[b] + 3, materials[b]);
    g_string_append(map, "}\n{\n\"classname\" \"info_player_start\"\n\"origin\" \"96 192 24\"\n"
                         "\"angle\" \"0\"\n}\n"
                         "{\n\"classname\" \"selftest_orb\"\n\"origin\" \"256 192 64\"\n}\n");
    return g_string_free(map, FALSE);
}

static char *preference_before;

/* The classes the browser lists under "selftest_", joined with spaces (g_free it). */
static char *listed(AlliumWindow *window)
{
    allium_entity_browser_set_search(window->entity_browser, "selftest_");
    g_autoptr(GPtrArray) shown = allium_entity_browser_dup_shown(window->entity_browser);
    g_ptr_array_add(shown, NULL);
    return g_strjoinv(" ", (char **) shown->pdata);
}

/* A problem of SNAP whose message holds WORDS, or NULL. */
static const al_diag *problem(AlliumSnapshot *snap, const char *words)
{
    for (size_t i = 0; snap && i < snap->diags.count; i++)
        if (strstr(snap->diags.items[i].message, words)) return &snap->diags.items[i];
    return NULL;
}

static gboolean has_class(AlliumSnapshot *snap, const char *name)
{
    return snap && snap->definitions && al_entdefs_find(&snap->definitions->defs, name);
}

/* The room's textures are found nowhere: the views draw each as the checker with its name.
 * The oracle is the renderer's own checker: the image is it but for two bands of text,
 * which hold white (the letters). */
static void check_missing_textures(SelfTest *t, AlliumTextures *textures)
{
    int named = 0;
    for (int i = textures->count; i < textures->drawn_count; i++)
        named += g_str_equal(textures->drawn[i].name, "far_wall_lost") &&
                 textures->drawn[i].width == ALLIUM_MISSING_TEXTURE_EDGE;
    check(t, g_strv_length(textures->missing) == 4 && textures->count == 0 && named == 1,
          "the room's 4 textures are missing and each has an image of its own to draw (%u)",
          g_strv_length(textures->missing));
    const int edge = ALLIUM_MISSING_TEXTURE_EDGE;
    g_autofree guint8 *image = allium_missing_texture_draw("far_wall_lost", edge);
    g_autofree guint8 *checker = g_malloc((gsize) edge * edge * 4);
    al_texture_checker(edge, checker);
    int rows_same = 0, white[2] = {0, 0};
    for (int y = 0; y < edge; y++) {
        gboolean same = memcmp(image + (gsize) y * edge * 4, checker + (gsize) y * edge * 4,
                               (gsize) edge * 4) == 0;
        rows_same += same;
        for (int x = 0; x < edge; x++) {
            const guint8 *p = image + ((gsize) y * edge + x) * 4;
            if (p[0] > 230 && p[1] > 230 && p[2] > 230) white[y >= edge / 2]++;
        }
    }
    check(t, rows_same > edge / 2 && white[0] > 20 && white[1] > 20,
          "a missing texture's image is the checker (%d of %d rows untouched) with its name "
          "written twice (%d and %d white pixels)",
          rows_same, edge, white[0], white[1]);
}

gboolean step_map_definitions(SelfTest *t)
{
    g_autofree char *folder = dir_file(t, "mapdefs");
    g_autofree char *map = g_build_filename(folder, "named.map", NULL);
    g_autofree char *imported = g_build_filename(folder, "named.allium", NULL);
    g_autofree char *defs = g_build_filename(folder, "defs", NULL);
    g_autofree char *pref = g_build_filename(defs, "pref.fgd", NULL);
    AlliumPreferences *prefs = allium_preferences_get_default();
    if (!t->step_begun) {
        g_mkdir_with_parents(defs, 0755);
        g_autofree char *mod = g_build_filename(defs, "mod.fgd", NULL);
        g_autofree char *other = g_build_filename(defs, "other.fgd", NULL);
        g_autofree char *text = named_map();
        check(t,
              g_file_set_contents(mod, MOD_FGD, -1, NULL) &&
                  g_file_set_contents(other, OTHER_FGD, -1, NULL) &&
                  g_file_set_contents(pref, PREF_FGD, -1, NULL) &&
                  g_file_set_contents(map, text, -1, NULL),
              "a map naming defs/mod.fgd in its _tb_def key was written with its files");
        g_clear_pointer(&preference_before, g_free);
        g_object_get(prefs, "entity-definitions", &preference_before, NULL);
        g_autoptr(GFile) file = g_file_new_for_path(map);
        allium_application_open_file(t->app, file, t->window);
        t->phase = 0;
        return FALSE;
    }
    AlliumWindow *window = allium_application_find_window(t->app, imported);
    if (!window || !compiled_current(window) || !settle(t)) return FALSE;
    AlliumDocument *doc = allium_window_get_document(window);
    AlliumSnapshot *snap = allium_document_get_snapshot(doc);
    switch (t->phase) {
    case 0: {
        AlliumTextures *textures = allium_document_get_textures(doc);
        if (!textures) return FALSE;
        check_missing_textures(t, textures);
        g_autofree char *shown = listed(window);
        check(t, g_strcmp0(shown, "selftest_orb") == 0,
              "the entity browser lists the class of the map's definition file (\"%s\")", shown);
        const al_diag *bad = problem(snap, "mod.fgd");
        check(t, bad && bad->line == 3 && bad->column > 0,
              "its bad definition is a problem naming mod.fgd, line 3 and a column (\"%s\")",
              bad ? bad->message : "none");
        check(t, problem(snap, "selftest_orb") == NULL,
              "the map's orb is of a known class: no warning names it");
        int orb = allium_snapshot_find_entity(snap, "selftest_orb");
        double lo[3] = {0}, hi[3] = {0};
        gboolean box = orb > 0 && snap->scene && al_scene_entity_bounds(snap->scene, orb, lo, hi);
        check(t, box && lo[0] == 236 && hi[2] == 84,
              "the orb is drawn at its class's size (%g .. %g)", lo[0], hi[2]);
        if (orb > 0) {
            gint64 row = snap->input.entity_ids[orb];
            allium_selection_set_items(window->selection, NULL, 0, &row, 1);
            check(t,
                  allium_inspector_is_absent(window->inspector, "radius") &&
                      g_strcmp0(allium_inspector_get_value(window->inspector, "radius"), "5") == 0,
                  "the properties list its class's key radius with its default 5 (\"%s\")",
                  allium_inspector_get_value(window->inspector, "radius"));
            allium_selection_clear(window->selection);
        }
        g_autoptr(GdkTexture) shot = screenshot(t, GTK_WIDGET(window), "52-map-definitions.png");
        /* The Preferences' file, applied at once. */
        g_object_set(prefs, "entity-definitions", pref, NULL);
        g_autofree char *now = listed(window);
        check(t, g_strcmp0(now, "selftest_orb selftest_pref") == 0,
              "changing the Preferences' files updates the browser at once (\"%s\")", now);
        t->phase = 1;
        return FALSE;
    }
    case 1: {
        if (!has_class(snap, "selftest_pref")) return FALSE; /* the snapshot made again */
        check(t, problem(snap, "mod.fgd") != NULL,
              "the map's file is still read after the Preferences' one");
        g_object_set(prefs, "entity-definitions", preference_before ? preference_before : "", NULL);
        g_autofree char *back = listed(window);
        check(t, g_strcmp0(back, "selftest_orb") == 0,
              "and putting the preference back takes its class away (\"%s\")", back);
        /* The key changed as the property editor changes it: one undoable edit. */
        GError *error = NULL;
        gboolean set =
            allium_document_set_entity_property(doc, allium_document_get_world_entity(doc),
                                                "_tb_def", "external:defs/other.fgd", &error);
        check(t, set, "_tb_def set to the other file (%s)", error ? error->message : "ok");
        g_clear_error(&error);
        t->phase = 2;
        return FALSE;
    }
    case 2: {
        if (!has_class(snap, "selftest_other")) return FALSE;
        g_autofree char *shown = listed(window);
        check(t, g_strcmp0(shown, "selftest_other") == 0,
              "the browser follows the map's key (\"%s\")", shown);
        check(t, problem(snap, "mod.fgd") == NULL && problem(snap, "selftest_orb") != NULL,
              "the old file's problem is gone and the orb is now of an unknown class");
        GError *error = NULL;
        check(t, allium_document_undo(doc, &error), "the key's change is undone (%s)",
              error ? error->message : "ok");
        g_clear_error(&error);
        t->phase = 3;
        return FALSE;
    }
    default: {
        if (!has_class(snap, "selftest_orb")) return FALSE;
        g_autofree char *shown = listed(window);
        check(t, g_strcmp0(shown, "selftest_orb") == 0,
              "after the undo the map's first file gives the classes again (\"%s\")", shown);
        g_clear_pointer(&preference_before, g_free);
        gtk_window_destroy(GTK_WINDOW(window));
        return TRUE;
    }
    }
}
