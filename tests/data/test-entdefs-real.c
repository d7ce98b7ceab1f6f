/* Entity definitions on the real files of the shared defs folder (TrenchBroom's Quake,
 * Quoth 2, Half-Life and Hexen II FGDs and Rubicon 2's DEF), and on the real maps:
 *
 *   - every file reads without an error, and its number of classes that are not base
 *     classes is the one its SOURCES.md table states (counted there by someone else);
 *   - known classes have the boxes, colours, flags and choices their files give (values
 *     read from the files by hand);
 *   - Quoth 2 read after Quake replaces the classes both define and adds its own;
 *   - every class that the real maps' entities use (read through the project's .map
 *     reader) is defined by the bundled quake.fgd, and the ones TrenchBroom's Quake.fgd
 *     lacks are listed.
 *
 *   test-entdefs-real DEFS-FOLDER MAPS-FOLDER    (skipped when DEFS-FOLDER is absent)
 */
#include "check.h"
#include "entdefs/entdefs.h"
#include "mapfile/map-input.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *defs_dir, *maps_dir;

static void path_of(char *out, size_t size, const char *file)
{
    snprintf(out, size, "%s/%s", defs_dir, file);
}

/* Loads FILE of the defs folder into SET; counts its error diagnostics into *ERRORS. */
static bool load(al_entdefs *set, const char *file, size_t *errors)
{
    char path[2048];
    path_of(path, sizeof path, file);
    al_diag_list d = {0};
    al_status st = al_entdefs_load(set, path, &d);
    for (size_t i = 0; i < d.count; i++) {
        char text[300];
        check_note("%s", al_diag_format(&d.items[i], text, sizeof text));
    }
    if (errors) *errors = al_diag_count(&d, AL_SEVERITY_ERROR);
    al_diag_list_clear(&d);
    return st == AL_OK;
}

static int concrete_classes(const al_entdefs *set)
{
    int n = 0;
    for (int i = 0; i < set->class_count; i++) n += set->classes[i].kind != AL_ENTDEF_BASE;
    return n;
}

static const al_entdef_flag *find_flag(const al_entdef_property *p, unsigned bit)
{
    for (int i = 0; p && i < p->flag_count; i++)
        if (p->flags[i].bit == bit) return &p->flags[i];
    return NULL;
}

static bool box_is(const al_entdef_class *c, double x0, double y0, double z0, double x1, double y1,
                   double z1)
{
    return c && c->has_size && c->mins[0] == x0 && c->mins[1] == y0 && c->mins[2] == z0 &&
           c->maxs[0] == x1 && c->maxs[1] == y1 && c->maxs[2] == z1;
}

CHECK_TEST(counts, "/entdefs/real/every-file-reads-clean-with-the-classes-SOURCES-counts")
{
    char path[2048];
    path_of(path, sizeof path, "SOURCES.md");
    FILE *f = fopen(path, "r");
    REQUIRE_MSG(f, "%s: cannot read", path);
    char line[1024];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        /* | Quake.fgd | Quake (id1) | FGD, ...; 100 classes | */
        char file[256];
        if (sscanf(line, "| %255s |", file) != 1) continue;
        const char *n = strstr(line, " classes");
        if (!n) continue;
        const char *digits = n;
        while (digits > line && digits[-1] >= '0' && digits[-1] <= '9') digits--;
        int expected = atoi(digits);
        al_entdefs set = {0};
        size_t errors = 0;
        CHECK_MSG(load(&set, file, &errors), "%s could not be read", file);
        CHECK_MSG(errors == 0, "%s: %zu errors", file, errors);
        CHECK_MSG(concrete_classes(&set) == expected, "%s: %d classes, SOURCES.md says %d", file,
                  concrete_classes(&set), expected);
        check_note("%s: %d classes (%d with bases)", file, concrete_classes(&set), set.class_count);
        al_entdefs_clear(&set);
        rows++;
    }
    fclose(f);
    CHECK_MSG(rows == 5, "SOURCES.md lists %d files", rows);
}

CHECK_TEST(quake_values, "/entdefs/real/quake-fgd-classes-have-their-files-values")
{
    al_entdefs set = {0};
    REQUIRE(load(&set, "Quake.fgd", NULL));
    const al_entdef_class *ogre = al_entdefs_find(&set, "monster_ogre");
    CHECK(box_is(ogre, -32, -32, -24, 32, 32, 64));
    REQUIRE(ogre);
    CHECK(ogre->has_color && ogre->color[0] == 220 / 255.0 && ogre->color[1] == 0);
    const al_entdef_property *f = al_entdef_find_property(ogre, "spawnflags");
    CHECK(f && f->flag_count == 5 && find_flag(f, 1) && find_flag(f, 256) && find_flag(f, 2048));
    CHECK(f && strcmp(find_flag(f, 1)->label, "Ambush") == 0);
    CHECK(ogre->model && strstr(ogre->model, ":progs/ogre.mdl"));
    const al_entdef_class *door = al_entdefs_find(&set, "func_door");
    REQUIRE(door && door->kind == AL_ENTDEF_SOLID);
    f = al_entdef_find_property(door, "spawnflags");
    CHECK(f && find_flag(f, 1) && strcmp(find_flag(f, 1)->label, "Starts Open") == 0);
    CHECK(f && find_flag(f, 16) && strcmp(find_flag(f, 16)->label, "Silver Key required") == 0);
    const al_entdef_property *s = al_entdef_find_property(door, "sounds");
    CHECK(s && s->type == AL_PROP_CHOICES && s->choice_count == 5 &&
          strcmp(s->choices[0].label, "Silent") == 0);
    const al_entdef_property *w = al_entdef_find_property(door, "wait");
    CHECK(w && w->type == AL_PROP_STRING && strcmp(w->default_value, "3") == 0);
    const al_entdef_class *shooter = al_entdefs_find(&set, "trap_spikeshooter");
    CHECK(shooter && strncmp(shooter->description, "Triggered shooter\n\nFires a stream", 32) == 0);
    const al_entdef_class *start = al_entdefs_find(&set, "info_player_start");
    CHECK(box_is(start, -16, -16, -24, 16, 16, 32));
    const al_entdef_class *noise = al_entdefs_find(&set, "misc_noisemaker");
    CHECK(box_is(noise, -8, -8, -8, 8, 8, 8)); /* size(16 16 16) */
    al_entdefs_clear(&set);
}

CHECK_TEST(other_values, "/entdefs/real/half-life-hexen-quoth-rubicon-values")
{
    al_entdefs set = {0};
    REQUIRE(load(&set, "HalfLife.fgd", NULL));
    const al_entdef_class *pc = al_entdefs_find(&set, "path_corner");
    CHECK(box_is(pc, -8, -8, -8, 8, 8, 8));
    CHECK(pc && pc->has_color && pc->color[0] == 247 / 255.0 && pc->color[2] == 82 / 255.0);
    const al_entdef_class *amb = al_entdefs_find(&set, "ambient_generic");
    CHECK(amb && amb->kind == AL_ENTDEF_POINT);
    const al_entdef_class *cyc = al_entdefs_find(&set, "cycler");
    const al_entdef_property *m = al_entdef_find_property(cyc, "model");
    CHECK(m && m->type == AL_PROP_STUDIO);
    al_entdefs_clear(&set);

    REQUIRE(load(&set, "Hexen2.fgd", NULL));
    const al_entdef_class *door = al_entdefs_find(&set, "func_door");
    const al_entdef_property *f = al_entdef_find_property(door, "spawnflags");
    CHECK(f && find_flag(f, 2) && strcmp(find_flag(f, 2)->label, "Reverse") == 0);
    CHECK(f && find_flag(f, 4) && strcmp(find_flag(f, 4)->label, "Don't link") == 0);
    const al_entdef_property *w = al_entdef_find_property(door, "wait");
    bool never = false;
    for (int i = 0; w && i < w->choice_count; i++)
        never |= strcmp(w->choices[i].value, "-1") == 0 &&
                 strcmp(w->choices[i].label, "Never return") == 0;
    CHECK(w && w->type == AL_PROP_CHOICES && never);
    al_entdefs_clear(&set);

    REQUIRE(load(&set, "Quoth2.fgd", NULL));
    const al_entdef_class *dog = al_entdefs_find(&set, "monster_dog");
    CHECK(box_is(dog, -32, -32, -24, 32, 32, 40));
    f = al_entdef_find_property(dog, "spawnflags");
    CHECK(f && f->flag_count == 8 && find_flag(f, 32) &&
          strcmp(find_flag(f, 32)->label, "Teleport Silently") == 0 && find_flag(f, 1024));
    const al_entdef_property *sd = al_entdef_find_property(dog, "spawndelay");
    CHECK(sd && sd->choice_count == 1 && strcmp(sd->choices[0].value, "-1") == 0);
    CHECK(al_entdef_find_property(dog, "quothflags") != NULL); /* from Appearflags */
    al_entdefs_clear(&set);

    REQUIRE(load(&set, "Rubicon2.def", NULL));
    const al_entdef_class *laser = al_entdefs_find(&set, "func_laser");
    REQUIRE(laser);
    CHECK(laser->kind == AL_ENTDEF_SOLID && !laser->has_size);
    f = al_entdef_find_property(laser, "spawnflags");
    CHECK(f && f->flag_count == 2 && f->flags[0].bit == 1 &&
          strcmp(f->flags[0].label, "START_OFF") == 0 && f->flags[1].bit == 2 &&
          strcmp(f->flags[1].label, "LASER_SOLID") == 0);
    CHECK(al_entdef_find_property(laser, "alpha") && al_entdef_find_property(laser, "message2"));
    const al_entdef_class *axe = al_entdefs_find(&set, "weapon_axe");
    CHECK(box_is(axe, -16, -16, 0, 16, 16, 32));
    CHECK(axe && axe->color[1] == 0.5 && axe->color[2] == 0.8);
    CHECK(axe && axe->model && strcmp(axe->model, "model(\":progs/g_axe.mdl\");") == 0);
    CHECK(axe && strcmp(axe->description, "Axe.") == 0);
    const al_entdef_class *brk = al_entdefs_find(&set, "func_breakable");
    CHECK(brk && al_entdef_find_property(brk, "health") && al_entdef_find_property(brk, "cnt") &&
          al_entdef_find_property(brk, "style"));
    al_entdefs_clear(&set);
}

CHECK_TEST(layering, "/entdefs/real/quoth-read-after-quake-replaces-and-adds")
{
    al_entdefs quake = {0}, quoth = {0}, both = {0};
    REQUIRE(load(&quake, "Quake.fgd", NULL) && load(&quoth, "Quoth2.fgd", NULL));
    REQUIRE(load(&both, "Quake.fgd", NULL) && load(&both, "Quoth2.fgd", NULL));
    int shared = 0;
    for (int i = 0; i < quake.class_count; i++)
        shared += al_entdefs_find(&quoth, quake.classes[i].name) != NULL;
    CHECK_MSG(both.class_count == quake.class_count + quoth.class_count - shared,
              "%d classes layered, expected %d + %d - %d", both.class_count, quake.class_count,
              quoth.class_count, shared);
    int from_quoth = 0, wrong = 0;
    for (int i = 0; i < both.class_count; i++) {
        const al_entdef_class *c = &both.classes[i];
        const al_entdef_class *q = al_entdefs_find(&quoth, c->name);
        from_quoth += c->file == 1;
        wrong +=
            (q != NULL) != (c->file == 1) || (q && (strcmp(q->description, c->description) != 0 ||
                                                    q->property_count != c->property_count));
    }
    CHECK(wrong == 0 && from_quoth == quoth.class_count);
    check_note("Quake %d + Quoth 2 %d classes, %d in both: %d layered", quake.class_count,
               quoth.class_count, shared, both.class_count);
    al_entdefs_clear(&quake);
    al_entdefs_clear(&quoth);
    al_entdefs_clear(&both);
}

/* Adds the classnames of the maps in DIR to *NAMES (distinct, counted in *COUNT). */
static int add_map_classes(const char *dir, char ***names, int *count)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int maps = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".map") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        al_map *map = NULL;
        al_diag_list diags = {0};
        if (al_map_read_file(path, &map, &diags) == AL_OK) {
            maps++;
            for (int i = 0; i < map->entity_count; i++) {
                const char *cn = al_map_entity_value(&map->entities[i], "classname");
                if (!cn) continue;
                int k = 0;
                while (k < *count && strcmp((*names)[k], cn) != 0) k++;
                if (k < *count) continue;
                *names = realloc(*names, (size_t) (*count + 1) * sizeof **names);
                (*names)[(*count)++] = strdup(cn);
            }
        }
        al_map_destroy(map);
        al_diag_list_clear(&diags);
    }
    closedir(d);
    return maps;
}

/* The names of NAMES that SET does not define as a class that is not a base. */
static int report_missing(const al_entdefs *set, char **names, int count, const char *what)
{
    int missing = 0;
    char list[2048] = "";
    for (int i = 0; i < count; i++) {
        const al_entdef_class *c = al_entdefs_find(set, names[i]);
        if (c && c->kind != AL_ENTDEF_BASE) continue;
        missing++;
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, " %s", names[i]);
    }
    check_note("%s: %d of %d classes undefined:%s", what, missing, count, list);
    return missing;
}

CHECK_TEST(maps_covered, "/entdefs/real/every-class-the-real-maps-use-is-defined")
{
    char **id_names = NULL, **all_names = NULL;
    int id_count = 0, all_count = 0;
    char id_dir[2048];
    snprintf(id_dir, sizeof id_dir, "%s/id", maps_dir);
    int id_maps = add_map_classes(id_dir, &id_names, &id_count);
    int maps = add_map_classes(maps_dir, &all_names, &all_count);
    add_map_classes(id_dir, &all_names, &all_count);
    if (id_maps == 0 && maps == 0) {
        check_skip("no maps in the shared maps folder");
        return;
    }
    check_note("%d of id's maps use %d classes; with the other %d maps, %d", id_maps, id_count,
               maps, all_count);
    al_entdefs ours = {0}, trenchbroom = {0};
    al_diag_list d = {0};
    REQUIRE(al_entdefs_load_bundled(&ours, &d) == AL_OK);
    REQUIRE(load(&trenchbroom, "Quake.fgd", NULL));
    CHECK(report_missing(&ours, id_names, id_count, "quake.fgd (ours), id's maps") == 0);
    CHECK(report_missing(&ours, all_names, all_count, "quake.fgd (ours), all maps") == 0);
    report_missing(&trenchbroom, id_names, id_count, "TrenchBroom's Quake.fgd, id's maps");
    /* TrenchBroom's file lacks item_weapon, the ammunition box of an early version of the
     * game that some of id's maps still hold ("grep item_weapon Quake.fgd" finds nothing). */
    CHECK(report_missing(&trenchbroom, all_names, all_count, "TrenchBroom's Quake.fgd, all maps") ==
          1);
    CHECK(al_entdefs_find(&trenchbroom, "item_weapon") == NULL);
    for (int i = 0; i < id_count; i++) free(id_names[i]);
    for (int i = 0; i < all_count; i++) free(all_names[i]);
    free(id_names);
    free(all_names);
    al_entdefs_clear(&ours);
    al_entdefs_clear(&trenchbroom);
    al_diag_list_clear(&d);
}

int main(int argc, char **argv)
{
    defs_dir = argc > 1 ? argv[1] : "";
    maps_dir = argc > 2 ? argv[2] : "";
    struct stat st;
    char sources[2048];
    snprintf(sources, sizeof sources, "%s/SOURCES.md", defs_dir);
    if (stat(sources, &st) != 0) check_skip_all("no shared defs folder (SOURCES.md) given");
    return check_main(argc, argv);
}
