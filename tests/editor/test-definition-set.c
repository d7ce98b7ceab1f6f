/* A document's entity definitions (editor/entdefs/allium-definition-set.c): the layering of
 * the bundled file, the Preferences' files and the map's, checked against each file read
 * alone (the last file that defines a class gives it); the map's "_tb_def" and
 * "allium_defs" taken from the map's folder; a bad file reported with file, line and column
 * and skipped; and the slot's set replaced while other threads read it (run it under
 * ThreadSanitizer too: meson setup -Db_sanitize=thread).
 *
 * Run with the build folder as argument: the definition files are written there. */
#include "check.h"

#include "allium-definition-set.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

static const char *work_dir = ".";

/* Writes TEXT to NAME in the test's folder (SUB, made if needed, may be NULL); the path
 * (g_free it). */
static char *write_defs(const char *sub, const char *name, const char *text)
{
    g_autofree char *folder = sub ? g_build_filename(work_dir, "definition-set", sub, NULL)
                                  : g_build_filename(work_dir, "definition-set", NULL);
    g_mkdir_with_parents(folder, 0755);
    char *path = g_build_filename(folder, name, NULL);
    if (!g_file_set_contents(path, text, -1, NULL))
        check_fail(__FILE__, __LINE__, "cannot write %s", path);
    return path;
}

static const al_diag *find_diag(const al_diag_list *d, const char *words)
{
    for (size_t i = 0; i < d->count; i++)
        if (strstr(d->items[i].message, words)) return &d->items[i];
    return NULL;
}

static const char MOD_A[] =
    "@PointClass size(-1 -1 -1, 1 1 1) color(255 0 0) = light : \"A's light\" []\n"
    "@PointClass size(-2 -2 -2, 2 2 2) = mod_a : \"only in A\" []\n"
    "@PointClass size(-3 -3 -3, 3 3 3) = shared : \"A's shared\" []\n";
static const char MOD_B[] = "@PointClass size(-4 -4 -4, 4 4 4) = shared : \"B's shared\" []\n"
                            "@PointClass size(-5 -5 -5, 5 5 5) = mod_b : \"only in B\" []\n";
static const char MAP_C[] =
    "@PointClass size(-6 -6 -6, 6 6 6) = light : \"the map's light\" []\n"
    "@PointClass size(-7 -7 -7, 7 7 7) = map_c : \"only in the map's\" []\n";

CHECK_TEST(layers_as_mods_do, "/editor/definitions/layers-bundled-preferences-then-map")
{
    g_autofree char *a = write_defs("prefs", "a.fgd", MOD_A);
    g_autofree char *b = write_defs("prefs", "b.fgd", MOD_B);
    g_autofree char *c = write_defs("maps/defs", "c.fgd", MAP_C);
    g_autofree char *map_folder = g_build_filename(work_dir, "definition-set", "maps", NULL);
    g_autofree char *preference = g_strdup_printf(" %s ;%s;", a, b);
    al_property keys[] = {{"classname", "worldspawn"}, {"_tb_def", "external:defs/c.fgd"}};
    al_entity_desc world = {"worldspawn", 1, keys, 2};
    g_auto(GStrv) files = allium_definition_set_list_files(preference, &world, map_folder);
    REQUIRE(g_strv_length(files) == 3);
    CHECK(g_str_equal(files[0], a) && g_str_equal(files[1], b));
    CHECK_MSG(g_str_equal(files[2], c), "the map's file is %s, not %s", files[2], c);

    g_autoptr(AlliumDefinitionSet) set = allium_definition_set_new((const char *const *) files);
    CHECK_MSG(set->problems.count == 0, "%zu problems", set->problems.count);
    CHECK(allium_definition_set_has_files(set, (const char *const *) files));
    const char *fewer[] = {a, b, NULL};
    CHECK(!allium_definition_set_has_files(set, fewer));

    /* The oracle: each layer read alone; a class is the last layer's that defines it. */
    al_entdefs layers[4] = {{0}};
    al_diag_list d = {0};
    al_entdefs_load_bundled(&layers[0], &d);
    for (int i = 0; i < 3; i++) al_entdefs_load(&layers[1 + i], files[i], &d);
    CHECK(d.count == 0);
    int compared = 0;
    for (int l = 0; l < 4; l++)
        for (int i = 0; i < layers[l].class_count; i++) {
            const char *name = layers[l].classes[i].name;
            const al_entdef_class *want = NULL;
            for (int k = 3; k >= 0 && !want; k--) want = al_entdefs_find(&layers[k], name);
            const al_entdef_class *got = al_entdefs_find(&set->defs, name);
            REQUIRE_MSG(got, "%s is missing", name);
            CHECK_MSG(g_str_equal(got->description, want->description) &&
                          got->has_size == want->has_size &&
                          (!got->has_size ||
                           (got->mins[0] == want->mins[0] && got->maxs[2] == want->maxs[2])),
                      "%s is not its last layer's", name);
            compared++;
        }
    CHECK(compared > 100); /* the bundled Quake classes and the three files' */
    for (int l = 0; l < 4; l++) al_entdefs_clear(&layers[l]);
    al_diag_list_clear(&d);
    /* And by name: the map's light over A's over Quake's, B's shared over A's. */
    CHECK(g_str_equal(al_entdefs_find(&set->defs, "light")->description, "the map's light"));
    CHECK(g_str_equal(al_entdefs_find(&set->defs, "shared")->description, "B's shared"));
    CHECK(al_entdefs_find(&set->defs, "mod_a") && al_entdefs_find(&set->defs, "mod_b") &&
          al_entdefs_find(&set->defs, "map_c") && al_entdefs_find(&set->defs, "monster_army"));
}

CHECK_TEST(map_files_from_map_folder, "/editor/definitions/map-names-files-relative-to-the-map")
{
    al_property keys[] = {{"_tb_def", "external:mod/q.fgd"}, {"allium_defs", "/abs/x.def; y.fgd"}};
    al_entity_desc world = {"worldspawn", 1, keys, 2};
    g_auto(GStrv) files = allium_definition_set_list_files(NULL, &world, "/maps/here");
    REQUIRE(g_strv_length(files) == 3);
    CHECK(g_str_equal(files[0], "/maps/here/mod/q.fgd"));
    CHECK(g_str_equal(files[1], "/abs/x.def"));
    CHECK(g_str_equal(files[2], "/maps/here/y.fgd"));
    /* TrenchBroom's own files ("builtin:") are not files here; nothing named, nothing read. */
    al_property builtin[] = {{"_tb_def", "builtin:Quake.fgd"}};
    al_entity_desc tb = {"worldspawn", 1, builtin, 1};
    g_auto(GStrv) none = allium_definition_set_list_files("", &tb, "/maps/here");
    CHECK(g_strv_length(none) == 0);
    g_auto(GStrv) no_world = allium_definition_set_list_files("a.fgd", NULL, NULL);
    CHECK(g_strv_length(no_world) == 1 && g_str_equal(no_world[0], "a.fgd"));
}

CHECK_TEST(bad_file_reported, "/editor/definitions/bad-file-named-with-line-and-column-and-skipped")
{
    /* Line 2 lacks its class name: that definition goes, the one on line 3 stays. */
    g_autofree char *bad =
        write_defs(NULL, "bad.fgd",
                   "@PointClass size(-8 -8 -8, 8 8 8) = good_one : \"fine\" []\n"
                   "@PointClass size(-8 -8 -8, 8 8 8) = : \"no name\" []\n"
                   "@PointClass size(-8 -8 -8, 8 8 8) = good_two : \"fine\" []\n");
    g_autofree char *missing = g_build_filename(work_dir, "definition-set", "nowhere.fgd", NULL);
    const char *files[] = {bad, missing, NULL};
    g_autoptr(AlliumDefinitionSet) set = allium_definition_set_new(files);
    CHECK(al_entdefs_find(&set->defs, "good_one") && al_entdefs_find(&set->defs, "good_two"));
    CHECK(al_entdefs_find(&set->defs, "info_player_start")); /* the bundled file still read */
    const al_diag *d = find_diag(&set->problems, "bad.fgd");
    REQUIRE_MSG(d, "no problem names bad.fgd");
    CHECK_MSG(d->line == 2 && d->column > 0, "at line %d column %d: %s", d->line, d->column,
              d->message);
    CHECK(d->severity == AL_SEVERITY_ERROR || d->severity == AL_SEVERITY_WARNING);
    CHECK_MSG(find_diag(&set->problems, "nowhere.fgd"), "the missing file is not named");
}

/* --- the slot, replaced while read ----------------------------------------------------- */

#define READERS 3
#define SWAPS   60

typedef struct {
    AlliumDefinitionSlot *slot;
    gint *stop;
    int reads, wrong;
} Reader;

/* Each set's file defines "probe" with a description naming that file: a reader that finds
 * another's probe, or a class missing, read a set torn by a swap. */
static gpointer read_cb(gpointer data)
{
    Reader *r = data;
    while (!g_atomic_int_get(r->stop)) {
        AlliumDefinitionSet *set = allium_definition_slot_dup(r->slot);
        if (!set) continue;
        const al_entdef_class *probe = al_entdefs_find(&set->defs, "probe");
        g_autofree char *base = set->files[0] ? g_path_get_basename(set->files[0]) : NULL;
        if (!probe || !base || !g_str_equal(probe->description, base)) r->wrong++;
        for (int i = 0; i < set->defs.class_count; i++)
            if (al_entdefs_find(&set->defs, set->defs.classes[i].name) == NULL) r->wrong++;
        allium_definition_set_unref(set);
        r->reads++;
    }
    return NULL;
}

CHECK_TEST(swap_while_read, "/editor/definitions/set-replaced-while-other-threads-read-it")
{
    char *paths[2];
    for (int i = 0; i < 2; i++) {
        g_autofree char *name = g_strdup_printf("probe%d.fgd", i);
        g_autofree char *text = g_strdup_printf(
            "@PointClass size(-%d -1 -1, 1 1 1) = probe : \"%s\" []\n", i + 1, name);
        paths[i] = write_defs("swap", name, text);
    }
    AlliumDefinitionSlot slot;
    allium_definition_slot_init(&slot);
    CHECK(allium_definition_slot_dup(&slot) == NULL);
    gint stop = 0;
    Reader readers[READERS];
    GThread *threads[READERS];
    for (int t = 0; t < READERS; t++) {
        readers[t] = (Reader){&slot, &stop, 0, 0};
        threads[t] = g_thread_new("reader", read_cb, &readers[t]);
    }
    AlliumDefinitionSet *kept = NULL;
    for (int s = 0; s < SWAPS; s++) {
        const char *files[] = {paths[s % 2], NULL};
        AlliumDefinitionSet *set = allium_definition_set_new(files);
        allium_definition_slot_set(&slot, set);
        if (s == 0) kept = allium_definition_set_ref(set); /* a reader that holds on */
        allium_definition_set_unref(set);
    }
    g_atomic_int_set(&stop, 1);
    int reads = 0, wrong = 0;
    for (int t = 0; t < READERS; t++) {
        g_thread_join(threads[t]);
        reads += readers[t].reads;
        wrong += readers[t].wrong;
    }
    check_note("%d reads during %d swaps", reads, SWAPS);
    CHECK_MSG(wrong == 0, "%d reads saw a torn set", wrong);
    /* The first set, held, outlived its replacement. */
    CHECK(g_str_equal(al_entdefs_find(&kept->defs, "probe")->description, "probe0.fgd"));
    allium_definition_set_unref(kept);
    AlliumDefinitionSet *last = allium_definition_slot_dup(&slot);
    CHECK(last && g_str_equal(al_entdefs_find(&last->defs, "probe")->description, "probe1.fgd"));
    allium_definition_set_unref(last);
    allium_definition_slot_clear(&slot);
    for (int i = 0; i < 2; i++) g_free(paths[i]);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') work_dir = argv[1];
    return check_main(argc, argv);
}
