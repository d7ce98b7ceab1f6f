/* Entity definitions on small files written here: every FGD construct read into the model
 * (helpers, typed keys, choices, flags, joined strings), inheritance in FGD order, DEF
 * comments, layering of several files, @include relative to the including file with its
 * cycle refused, errors that name file, line and column and skip only the bad definition,
 * the bundled Quake file, and the check of a map's entities against a set.
 *
 * Run with the build folder as argument: the include tests write their files there. */
#include "check.h"
#include "entdefs/entdefs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *work_dir = ".";

static al_status read_text(al_entdefs *set, const char *text, const char *name, al_diag_list *d)
{
    return al_entdefs_read_buffer(set, text, strlen(text), name, AL_ENTDEFS_AUTO, d);
}

/* The diagnostic whose message contains WORDS, or NULL. */
static const al_diag *find_diag(const al_diag_list *d, const char *words)
{
    for (size_t i = 0; i < d->count; i++)
        if (strstr(d->items[i].message, words)) return &d->items[i];
    return NULL;
}

static void print_diags(const al_diag_list *d)
{
    for (size_t i = 0; i < d->count; i++) {
        char text[300];
        check_note("%s", al_diag_format(&d->items[i], text, sizeof text));
    }
}

static const al_entdef_flag *find_flag(const al_entdef_property *p, unsigned bit)
{
    for (int i = 0; p && i < p->flag_count; i++)
        if (p->flags[i].bit == bit) return &p->flags[i];
    return NULL;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static const char EVERY_CONSTRUCT[] =
    "// A comment line\n"
    "@BaseClass = Named [ targetname(target_source) : \"Name\" ]\n"
    "@PointClass base(Named) size(-16 -16 -24, 16 16 32) color(255 128 0)\n"
    "    model({ \"path\": \":progs/player.mdl\", \"skin\": 1 }) = info_thing : \"A \" + "
    "\"thing\"\n"
    "[\n"
    "    message(string) : \"Message\" : \"hello\" : \"Printed\\nwhen used\"\n"
    "    count(integer) : \"Count\" : 3\n"
    "    wait(float) : \"Wait\" : \"0.5\"\n"
    "    speed(integer) readonly : \"Speed\"\n"
    "    style(choices) : \"Style\" : 1 : \"How it looks\" =\n"
    "    [\n"
    "        0 : \"Plain\"\n"
    "        1 : \"Fancy\"\n"
    "        \"x\" : \"Named value\"\n"
    "    ]\n"
    "    spawnflags(Flags) =\n"
    "    [\n"
    "        1 : \"Start off\" : 1 : \"Needs a trigger\"\n"
    "        4 : \"Silent\" : 0\n"
    "        2 : \"Loud\"\n"
    "    ]\n"
    "    _color(color255) : \"Colour\" : \"255 255 255\"\n"
    "    _light(color1) : \"Light\" : \"1 1 1\"\n"
    "    target(target_destination) : \"Target\"\n"
    "    mdl(studio) : \"Model\"\n"
    "    noise(sound) : \"Sound\"\n"
    "    strange(vecline) : \"Odd\"\n"
    "    input Kill(void) : \"Removes it\"\n"
    "]\n"
    "@SolidClass = worldspawn : \"World\" []\n"
    "@mapsize(-4096, 4096)\n";

CHECK_TEST(every_construct, "/entdefs/fgd/every-construct-read-into-the-model")
{
    al_entdefs set = {0};
    al_diag_list d = {0};
    REQUIRE(read_text(&set, EVERY_CONSTRUCT, NULL, &d) == AL_OK);
    print_diags(&d);
    CHECK(d.count == 0);
    CHECK(set.class_count == 3 && set.file_count == 1);
    const al_entdef_class *c = al_entdefs_find(&set, "info_thing");
    REQUIRE(c);
    CHECK(c->kind == AL_ENTDEF_POINT && c->line == 3 && c->file == 0);
    CHECK(strcmp(c->description, "A thing") == 0);
    CHECK(c->has_size && c->mins[0] == -16 && c->mins[2] == -24 && c->maxs[1] == 16 &&
          c->maxs[2] == 32);
    CHECK(c->has_color);
    CHECK_NEAR(c->color[0], 1.0, 1e-12);
    CHECK_NEAR(c->color[1], 128 / 255.0, 1e-12);
    CHECK_NEAR(c->color[2], 0.0, 1e-12);
    CHECK(c->model && strcmp(c->model, "{ \"path\": \":progs/player.mdl\", \"skin\": 1 }") == 0);
    CHECK(c->base_count == 1 && strcmp(c->bases[0], "Named") == 0);
    /* The base's key first, then the class's own in file order (the input line skipped). */
    static const char *const keys[] = {"targetname", "message",    "count",  "wait",   "speed",
                                       "style",      "spawnflags", "_color", "_light", "target",
                                       "mdl",        "noise",      "strange"};
    static const al_prop_type types[] = {AL_PROP_TARGET_SOURCE, AL_PROP_STRING,
                                         AL_PROP_INTEGER,       AL_PROP_FLOAT,
                                         AL_PROP_INTEGER,       AL_PROP_CHOICES,
                                         AL_PROP_FLAGS,         AL_PROP_COLOR255,
                                         AL_PROP_COLOR1,        AL_PROP_TARGET_DESTINATION,
                                         AL_PROP_STUDIO,        AL_PROP_SOUND,
                                         AL_PROP_OTHER};
    REQUIRE(c->property_count == 13);
    for (int i = 0; i < 13; i++) {
        CHECK_MSG(strcmp(c->properties[i].key, keys[i]) == 0, "key %d is %s, expected %s", i,
                  c->properties[i].key, keys[i]);
        CHECK_MSG(c->properties[i].type == types[i], "%s has type %s", keys[i],
                  al_prop_type_name(c->properties[i].type));
    }
    const al_entdef_property *m = al_entdef_find_property(c, "message");
    REQUIRE(m);
    CHECK(strcmp(m->display, "Message") == 0 && strcmp(m->default_value, "hello") == 0 &&
          m->has_default);
    CHECK(strcmp(m->description, "Printed\nwhen used") == 0);
    const al_entdef_property *w = al_entdef_find_property(c, "wait");
    CHECK(w && strcmp(w->default_value, "0.5") == 0);
    const al_entdef_property *sp = al_entdef_find_property(c, "speed");
    CHECK(sp && sp->read_only && !sp->has_default && strcmp(sp->display, "Speed") == 0);
    const al_entdef_property *st = al_entdef_find_property(c, "style");
    REQUIRE(st && st->choice_count == 3);
    CHECK(strcmp(st->default_value, "1") == 0 && strcmp(st->description, "How it looks") == 0);
    CHECK(strcmp(st->choices[1].value, "1") == 0 && strcmp(st->choices[1].label, "Fancy") == 0);
    CHECK(strcmp(st->choices[2].value, "x") == 0 &&
          strcmp(st->choices[2].label, "Named value") == 0);
    const al_entdef_property *f = al_entdef_find_property(c, "spawnflags");
    REQUIRE(f && f->flag_count == 3);
    CHECK(strcmp(f->type_name, "flags") == 0);
    CHECK(f->flags[0].bit == 1 && f->flags[0].on &&
          strcmp(f->flags[0].description, "Needs a trigger") == 0);
    CHECK(f->flags[1].bit == 4 && !f->flags[1].on && strcmp(f->flags[1].label, "Silent") == 0);
    CHECK(f->flags[2].bit == 2 && strcmp(f->flags[2].label, "Loud") == 0);
    const al_entdef_property *o = al_entdef_find_property(c, "strange");
    CHECK(o && strcmp(o->type_name, "vecline") == 0);
    const al_entdef_class *world = al_entdefs_find(&set, "worldspawn");
    CHECK(world && world->kind == AL_ENTDEF_SOLID && world->property_count == 0);
    CHECK(al_entdefs_find(&set, "Named") && al_entdefs_find(&set, "Named")->kind == AL_ENTDEF_BASE);
    CHECK(al_entdefs_find(&set, "INFO_THING") == NULL); /* classes match exactly */
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);
}

CHECK_TEST(inheritance, "/entdefs/fgd/bases-resolved-in-order-flags-merged")
{
    static const char text[] =
        "@BaseClass = A [ a(string) : \"A's a\" spawnflags(flags) = [ 256 : \"Not easy\" : 0 ] ]\n"
        "@BaseClass size(-8 -8 -8, 8 8 8) color(0 255 0) model(\"b.mdl\") = B\n"
        "[ a(integer) : \"B's a\" b(string) : \"B\" ]\n"
        "@BaseClass color(255 0 0) = Cc [ c(string) ]\n"
        "@PointClass base(A, B, cc) = thing\n"
        "[ spawnflags(flags) = [ 1 : \"Ambush\" : 0 256 : \"Hidden on easy\" : 1 ] own(float) ]\n"
        "@PointClass base(thing) size(0 0 0, 1 1 1) = thing2 [ a(choices) : \"Own a\" = [ 0 : "
        "\"no\" ] ]\n";
    al_entdefs set = {0};
    al_diag_list d = {0};
    REQUIRE(read_text(&set, text, NULL, &d) == AL_OK);
    print_diags(&d);
    CHECK(d.count == 0);
    const al_entdef_class *t = al_entdefs_find(&set, "thing");
    REQUIRE(t && t->property_count == 5);
    /* A's keys, then B's (its "a" replacing A's in place), then Cc's, then its own. */
    CHECK(strcmp(t->properties[0].key, "a") == 0 && t->properties[0].type == AL_PROP_INTEGER &&
          strcmp(t->properties[0].display, "B's a") == 0);
    CHECK(strcmp(t->properties[1].key, "spawnflags") == 0);
    CHECK(strcmp(t->properties[2].key, "b") == 0);
    CHECK(strcmp(t->properties[3].key, "c") == 0);
    CHECK(strcmp(t->properties[4].key, "own") == 0);
    const al_entdef_property *f = al_entdef_find_property(t, "spawnflags");
    REQUIRE(f && f->flag_count == 2);
    CHECK(f->flags[0].bit == 1 && f->flags[1].bit == 256);
    CHECK(strcmp(find_flag(f, 256)->label, "Hidden on easy") == 0 && find_flag(f, 256)->on);
    /* Size, colour and model from the first base that has them. */
    CHECK(t->has_size && t->mins[0] == -8 && t->maxs[2] == 8);
    CHECK(t->has_color && t->color[1] == 1.0 && t->color[0] == 0.0);
    CHECK(t->model && strcmp(t->model, "\"b.mdl\"") == 0);
    const al_entdef_class *t2 = al_entdefs_find(&set, "thing2");
    REQUIRE(t2 && t2->property_count == 5);
    CHECK(t2->properties[0].type == AL_PROP_CHOICES && t2->properties[0].choice_count == 1);
    CHECK(t2->has_size && t2->maxs[0] == 1 && t2->mins[0] == 0); /* its own size wins */
    /* The base's own list is untouched by the class's merge. */
    const al_entdef_property *af =
        al_entdef_find_property(al_entdefs_find(&set, "A"), "spawnflags");
    CHECK(af && af->flag_count == 1 && strcmp(af->flags[0].label, "Not easy") == 0);
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);
}

CHECK_TEST(centred_size, "/entdefs/fgd/one-vector-size-is-centred")
{
    al_entdefs set = {0};
    al_diag_list d = {0};
    REQUIRE(read_text(&set, "@PointClass size(16 32 8) = p []", NULL, &d) == AL_OK);
    const al_entdef_class *p = al_entdefs_find(&set, "p");
    REQUIRE(p && p->has_size);
    CHECK(p->mins[0] == -8 && p->maxs[0] == 8 && p->mins[1] == -16 && p->maxs[2] == 4);
    CHECK(d.count == 0);
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);
}

/* Each bad definition at a known place, between two good ones. */
static const struct {
    const char *bad;  /* the definition on line 2 */
    int line, column; /* of the error */
    const char *words;
} BAD_FGD[] = {
    {"@PointClass size(1 2) = p []", 2, 13, "size() needs six numbers"},
    {"@PointClass color(300 0 0) = p []", 2, 13, "color() needs three numbers"},
    {"@PointClass base(a) p []", 2, 23, "expected a helper such as base(...) or '=', found '['"},
    {"@PointClass = [ ]", 2, 15, "expected the class name, found '['"},
    {"@PointClass = p [ k(integer) : \"K\" : 1 : \"d\" = [ 1 : \"x\" ] ]", 2, 48,
     "key 'k' of type integer cannot have a list"},
    {"@PointClass = p [ spawnflags(flags) = [ two : \"x\" ] ]", 2, 41,
     "expected a flag's bit (an integer from 0), found 'two'"},
    {"@PointClass = p [ spawnflags(flags) = [ 1 : \"x\" : 2 ] ]", 2, 51,
     "expected 0 or 1, found '2'"},
    {"@PointClass = p [ k integer ]", 2, 21, "expected '(' and the key's type, found 'integer'"},
    {"@PointClass = p [ k(integer ]", 2, 29, "expected ')', found ']'"},
    {"@PointClass = p : \"x\" + 3 []", 2, 25, "expected a string after '+', found '3'"},
    {"@Klass = p []", 2, 2, "unknown definition kind '@Klass'"},
    {"PointClass = p []", 2, 1, "expected '@' and a definition, found 'PointClass'"},
    {"@PointClass model(\"x\" = p []\n", 2, 18, "'(' is not closed"},
    {"@PointClass = p : \"unclosed []\n", 2, 19, "found an unclosed string"},
    {"@include \"x.fgd\"", 2, 10, "a text read from memory cannot include files"},
};

CHECK_TEST(bad_fgd, "/entdefs/fgd/error-names-line-and-column-and-skips-the-definition")
{
    for (size_t i = 0; i < sizeof BAD_FGD / sizeof BAD_FGD[0]; i++) {
        char text[400];
        snprintf(text, sizeof text, "@PointClass = good1 []\n%s\n@PointClass = good2 []\n",
                 BAD_FGD[i].bad);
        al_entdefs set = {0};
        al_diag_list d = {0};
        REQUIRE(al_entdefs_read_buffer(&set, text, strlen(text), NULL, AL_ENTDEFS_FGD, &d) ==
                AL_OK);
        const al_diag *e = find_diag(&d, BAD_FGD[i].words);
        CHECK_MSG(e && e->line == BAD_FGD[i].line && e->column == BAD_FGD[i].column &&
                      e->severity == AL_SEVERITY_ERROR,
                  "case %zu (%s): expected '%s' at %d:%d", i, BAD_FGD[i].bad, BAD_FGD[i].words,
                  BAD_FGD[i].line, BAD_FGD[i].column);
        if (!e || d.count != 1) print_diags(&d);
        CHECK_MSG(strncmp(d.count ? d.items[0].message : "", "(buffer): ", 10) == 0,
                  "case %zu: the message names the text", i);
        CHECK_MSG(al_entdefs_find(&set, "good1") != NULL, "case %zu: good1 kept", i);
        /* An unclosed string or parenthesis runs to the end of the file. */
        if (!strstr(BAD_FGD[i].words, "unclosed") && !strstr(BAD_FGD[i].words, "not closed"))
            CHECK_MSG(al_entdefs_find(&set, "good2") != NULL, "case %zu: good2 read", i);
        CHECK_MSG(al_entdefs_find(&set, "p") == NULL, "case %zu: the bad class is skipped", i);
        al_entdefs_clear(&set);
        al_diag_list_clear(&d);
    }
}

CHECK_TEST(unknown_base, "/entdefs/fgd/unknown-base-is-a-warning-and-the-class-is-kept")
{
    al_entdefs set = {0};
    al_diag_list d = {0};
    REQUIRE(read_text(&set, "\n@PointClass base(Nowhere) = p [ k(string) ]\n", "my.fgd", &d) ==
            AL_OK);
    const al_diag *w = find_diag(&d, "my.fgd: class 'p': unknown base class 'Nowhere'");
    CHECK(w && w->severity == AL_SEVERITY_WARNING && w->line == 2);
    const al_entdef_class *p = al_entdefs_find(&set, "p");
    CHECK(p && p->property_count == 1);
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);
}

CHECK_TEST(layering, "/entdefs/layering/later-file-replaces-a-class-of-the-same-name")
{
    al_entdefs set = {0};
    al_diag_list d = {0};
    REQUIRE(read_text(&set, "@PointClass = a : \"first\" []\n@PointClass = b [ k(string) ]\n",
                      "game.fgd", &d) == AL_OK);
    REQUIRE(read_text(&set,
                      "@PointClass = b : \"mod's b\" [ k(integer) m(string) ]\n"
                      "@PointClass = c []\n",
                      "mod.fgd", &d) == AL_OK);
    CHECK(d.count == 0);
    CHECK(set.file_count == 2 && strcmp(set.files[0], "game.fgd") == 0 &&
          strcmp(set.files[1], "mod.fgd") == 0);
    CHECK(set.class_count == 3);
    const al_entdef_class *b = al_entdefs_find(&set, "b");
    REQUIRE(b);
    CHECK(strcmp(b->description, "mod's b") == 0 && b->file == 1 && b->property_count == 2);
    CHECK(b->properties[0].type == AL_PROP_INTEGER);
    CHECK(al_entdefs_find(&set, "a")->file == 0 && al_entdefs_find(&set, "c")->file == 1);
    /* Many classes: lookups stay right as the index grows. */
    for (int i = 0; i < 500; i++) {
        char text[64];
        snprintf(text, sizeof text, "@PointClass = many%d []", i);
        read_text(&set, text, NULL, &d);
    }
    int found = 0;
    for (int i = 0; i < 500; i++) {
        char name[32];
        snprintf(name, sizeof name, "many%d", i);
        const al_entdef_class *c = al_entdefs_find(&set, name);
        found += c && strcmp(c->name, name) == 0;
    }
    CHECK(found == 500 && set.class_count == 503);
    al_entdefs_clear(&set);
    al_entdefs_clear(&set); /* cleared twice, and NULL, are no-ops */
    al_entdefs_clear(NULL);
    al_diag_list_clear(&d);
}

CHECK_TEST(include, "/entdefs/include/resolved-relative-to-the-including-file")
{
    char dir[1024], sub[1100], path[1200];
    snprintf(dir, sizeof dir, "%s/entdefs-include", work_dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    mkdir(dir, 0755);
    mkdir(sub, 0755);
    snprintf(path, sizeof path, "%s/leaf.fgd", dir);
    write_file(path, "@BaseClass = Leaf [ leafkey(string) ]\n");
    snprintf(path, sizeof path, "%s/base.fgd", sub);
    write_file(path, "@include \"../leaf.fgd\"\n@BaseClass base(Leaf) = Mid []\n");
    snprintf(path, sizeof path, "%s/main.fgd", dir);
    write_file(path, "@include \"sub/base.fgd\"\n@PointClass base(Mid) = top []\n");
    al_entdefs set = {0};
    al_diag_list d = {0};
    REQUIRE(al_entdefs_load(&set, path, &d) == AL_OK);
    print_diags(&d);
    CHECK(d.count == 0);
    CHECK(set.file_count == 3);
    const al_entdef_class *top = al_entdefs_find(&set, "top");
    REQUIRE(top);
    CHECK(top->property_count == 1 && strcmp(top->properties[0].key, "leafkey") == 0);
    CHECK(top->file == 0 && al_entdefs_find(&set, "Leaf")->file == 2);
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);

    snprintf(path, sizeof path, "%s/missing.fgd", dir);
    write_file(path, "@PointClass = a []\n  @include \"nothing-here.fgd\"\n@PointClass = b []\n");
    REQUIRE(al_entdefs_load(&set, path, &d) == AL_OK);
    const al_diag *e = find_diag(&d, "cannot read the included file");
    CHECK(e && e->line == 2 && e->column == 12 && strstr(e->message, "missing.fgd: "));
    CHECK(al_entdefs_find(&set, "a") && al_entdefs_find(&set, "b"));
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);

    CHECK(al_entdefs_load(&set, "/nonexistent/defs.fgd", &d) == AL_ERR_IO);
    CHECK(find_diag(&d, "/nonexistent/defs.fgd: cannot read"));
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);
}

CHECK_TEST(include_cycle, "/entdefs/include/cycle-is-refused-and-reading-goes-on")
{
    char a[1200], b[1200];
    snprintf(a, sizeof a, "%s/entdefs-cycle-a.fgd", work_dir);
    snprintf(b, sizeof b, "%s/entdefs-cycle-b.fgd", work_dir);
    write_file(
        a, "@PointClass = in_a []\n@include \"entdefs-cycle-b.fgd\"\n@PointClass = after_a []\n");
    write_file(
        b,
        "@PointClass = in_b []\n\n   @include \"entdefs-cycle-a.fgd\"\n@PointClass = after_b []\n");
    al_entdefs set = {0};
    al_diag_list d = {0};
    REQUIRE(al_entdefs_load(&set, a, &d) == AL_OK);
    REQUIRE(d.count == 1);
    const al_diag *e = &d.items[0];
    CHECK(strstr(e->message, "entdefs-cycle-b.fgd: include cycle:") && e->line == 3 &&
          e->column == 13 && e->severity == AL_SEVERITY_ERROR);
    CHECK(set.file_count == 2);
    CHECK(al_entdefs_find(&set, "in_a") && al_entdefs_find(&set, "in_b") &&
          al_entdefs_find(&set, "after_a") && al_entdefs_find(&set, "after_b"));
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);

    /* A file including itself. */
    write_file(a, "@include \"entdefs-cycle-a.fgd\"\n@PointClass = self []\n");
    REQUIRE(al_entdefs_load(&set, a, &d) == AL_OK);
    CHECK(d.count == 1 && find_diag(&d, "include cycle") && al_entdefs_find(&set, "self"));
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);
}

static const char DEF_TEXT[] = "// Outside comments: ignored\n"
                               "/*QUAKED light_thing (0 1 0) (-8 -8 -8) (8 8 8) START_OFF - LOUD\n"
                               "{ model(\":progs/flame.mdl\"); }\n"
                               "A light that hums.\n"
                               "\n"
                               "\"light\" brightness, default 300\n"
                               "  \"style\"\tanimation\n"
                               "\"not a key\" is prose\n"
                               "*/\n"
                               "void() light_thing = {};\n"
                               "/*QUAKED func_mover (0 .5 .8) ? X_AXIS Y_AXIS\n"
                               "Moves.\n"
                               "*/\n";

CHECK_TEST(def_classes, "/entdefs/def/point-and-solid-classes-flags-and-keys")
{
    al_entdefs set = {0};
    al_diag_list d = {0};
    REQUIRE(read_text(&set, DEF_TEXT, "test.def", &d) == AL_OK);
    print_diags(&d);
    CHECK(d.count == 0 && set.class_count == 2);
    const al_entdef_class *l = al_entdefs_find(&set, "light_thing");
    REQUIRE(l);
    CHECK(l->kind == AL_ENTDEF_POINT && l->line == 2);
    CHECK(l->has_color && l->color[0] == 0 && l->color[1] == 1 && l->color[2] == 0);
    CHECK(l->has_size && l->mins[0] == -8 && l->maxs[2] == 8);
    CHECK(l->model && strcmp(l->model, "model(\":progs/flame.mdl\");") == 0);
    CHECK(strncmp(l->description, "A light that hums.\n\n\"light\" brightness", 38) == 0);
    const al_entdef_property *f = al_entdef_find_property(l, "spawnflags");
    REQUIRE(f && f->type == AL_PROP_FLAGS && f->flag_count == 2);
    CHECK(f->flags[0].bit == 1 && strcmp(f->flags[0].label, "START_OFF") == 0);
    CHECK(f->flags[1].bit == 4 && strcmp(f->flags[1].label, "LOUD") == 0); /* "-" skips 2 */
    const al_entdef_property *k = al_entdef_find_property(l, "light");
    CHECK(k && k->type == AL_PROP_STRING && strcmp(k->description, "brightness, default 300") == 0);
    const al_entdef_property *s = al_entdef_find_property(l, "style");
    CHECK(s && strcmp(s->description, "animation") == 0);
    CHECK(al_entdef_find_property(l, "not a key") == NULL && l->property_count == 3);
    const al_entdef_class *m = al_entdefs_find(&set, "func_mover");
    REQUIRE(m);
    CHECK(m->kind == AL_ENTDEF_SOLID && !m->has_size && m->line == 11 && m->model == NULL);
    CHECK(strcmp(m->description, "Moves.") == 0);
    f = al_entdef_find_property(m, "spawnflags");
    CHECK(f && f->flag_count == 2 && f->flags[1].bit == 2 &&
          strcmp(f->flags[1].label, "Y_AXIS") == 0);
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);
}

static const struct {
    const char *header; /* after "/" "*QUAKED" on line 2 */
    int column;
    const char *words;
} BAD_DEF[] = {
    {" (1 0 0) (0 0 0) (1 1 1)", 10, "expected a class name"},
    {" p (1 0) (0 0 0) (1 1 1)", 12, "expected a colour (r g b)"},
    {" p (2 0 0) (0 0 0) (1 1 1)", 12, "colour values from 0 to 1"},
    {" p (1 0 0) (0 0 0) FLAG", 28, "the box's maxs (x y z)"},
    {" p (1 0 0) (0 a 0) (1 1 1)", 20, "the box's mins (x y z)"},
    {" p (1 0 0) ? A B C D E F G H I J K L M N O P Q R S T U V W X Y", 70, "at most 24 spawnflags"},
};

CHECK_TEST(bad_def, "/entdefs/def/error-names-line-and-column-and-skips-the-comment")
{
    for (size_t i = 0; i < sizeof BAD_DEF / sizeof BAD_DEF[0]; i++) {
        char text[400];
        snprintf(text, sizeof text,
                 "/*QUAKED good1 (1 0 0) ? */\n/*QUAKED%s\ntext */\n/*QUAKED good2 (0 0 1) ?\n*/\n",
                 BAD_DEF[i].header);
        al_entdefs set = {0};
        al_diag_list d = {0};
        REQUIRE(al_entdefs_read_buffer(&set, text, strlen(text), "bad.def", AL_ENTDEFS_AUTO, &d) ==
                AL_OK);
        const al_diag *e = find_diag(&d, BAD_DEF[i].words);
        CHECK_MSG(e && e->line == 2 && e->column == BAD_DEF[i].column &&
                      strncmp(e->message, "bad.def: ", 9) == 0,
                  "case %zu: expected '%s' at 2:%d", i, BAD_DEF[i].words, BAD_DEF[i].column);
        if (!e || d.count != 1) print_diags(&d);
        CHECK_MSG(set.class_count == 2 && al_entdefs_find(&set, "good1") &&
                      al_entdefs_find(&set, "good2"),
                  "case %zu: the good comments are read, the bad one skipped", i);
        al_entdefs_clear(&set);
        al_diag_list_clear(&d);
    }
    al_entdefs set = {0};
    al_diag_list d = {0};
    read_text(&set, "/*QUAKED a (1 0 0) ?\n*/\n\n  /*QUAKED b (1 0 0) ?\nno end", "u.def", &d);
    const al_diag *e = find_diag(&d, "QUAKED comment is not closed");
    CHECK(e && e->line == 4 && e->column == 3 && set.class_count == 1);
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);
}

CHECK_TEST(auto_format, "/entdefs/format/chosen-by-extension-else-by-content")
{
    al_entdefs set = {0};
    al_diag_list d = {0};
    /* A buffer without a name that holds QUAKED comments and no '@' is a DEF. */
    read_text(&set, DEF_TEXT, NULL, &d);
    CHECK(set.class_count == 2 && d.count == 0);
    al_entdefs_clear(&set);
    /* Named .fgd: read as FGD whatever it holds (the comment is not an '@' definition). */
    read_text(&set, "/*QUAKED x (1 0 0) ? */", "x.fgd", &d);
    CHECK(set.class_count == 0 && d.count == 1 && find_diag(&d, "expected '@'"));
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);
}

CHECK_TEST(bundled, "/entdefs/bundled/quake-definitions-read-clean")
{
    al_entdefs set = {0};
    al_diag_list d = {0};
    REQUIRE(al_entdefs_load_bundled(&set, &d) == AL_OK);
    print_diags(&d);
    CHECK(d.count == 0);
    CHECK(set.file_count == 1 && strcmp(set.files[0], AL_ENTDEFS_BUNDLED_NAME) == 0);
    const al_entdef_class *p = al_entdefs_find(&set, "info_player_start");
    REQUIRE(p);
    CHECK(p->kind == AL_ENTDEF_POINT && p->mins[2] == -24 && p->maxs[2] == 24);
    const al_entdef_class *o = al_entdefs_find(&set, "monster_ogre");
    REQUIRE(o);
    const al_entdef_property *f = al_entdef_find_property(o, "spawnflags");
    REQUIRE(f && f->flag_count == 5);
    CHECK(f->flags[0].bit == 1 && f->flags[4].bit == 2048); /* Ambush and Appearflags */
    CHECK(o->mins[0] == -32 && o->maxs[2] == 64);
    const al_entdef_class *w = al_entdefs_find(&set, "worldspawn");
    REQUIRE(w && w->kind == AL_ENTDEF_SOLID);
    const al_entdef_property *wt = al_entdef_find_property(w, "worldtype");
    CHECK(wt && wt->type == AL_PROP_CHOICES && wt->choice_count == 3);
    CHECK(al_entdef_find_property(w, "wad") && al_entdef_find_property(w, "sounds"));
    const al_entdef_class *door = al_entdefs_find(&set, "func_door");
    REQUIRE(door && door->kind == AL_ENTDEF_SOLID);
    f = al_entdef_find_property(door, "spawnflags");
    CHECK(f && find_flag(f, 8) && find_flag(f, 16) && find_flag(f, 32) && !find_flag(f, 2));
    CHECK(al_entdef_find_property(door, "target") &&
          al_entdef_find_property(door, "target")->type == AL_PROP_TARGET_DESTINATION);
    /* Every point class has a box; every class that is not a base has a description. */
    int boxless = 0, undescribed = 0;
    for (int i = 0; i < set.class_count; i++) {
        const al_entdef_class *c = &set.classes[i];
        boxless += c->kind == AL_ENTDEF_POINT && !c->has_size;
        undescribed += c->kind != AL_ENTDEF_BASE && !c->description[0];
    }
    CHECK(boxless == 0 && undescribed == 0);
    size_t size;
    const char *text = al_entdefs_bundled_text(&size);
    CHECK(text && size > 1000 && strlen(text) == size);
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);
}

CHECK_TEST(check_input, "/entdefs/check/unknown-classes-keys-and-missing-targets")
{
    al_entdefs set = {0};
    al_diag_list d = {0};
    REQUIRE(read_text(&set,
                      "@BaseClass = Base [ shared(string) ]\n"
                      "@SolidClass = worldspawn [ wad(string) ]\n"
                      "@PointClass base(Base) = light [ light(integer) ]\n",
                      NULL, &d) == AL_OK);
    al_property world[] = {{"classname", "worldspawn"}, {"wad", "q.wad"}, {"_tb_mod", "x"}};
    al_property l1[] = {{"classname", "light"}, {"origin", "0 0 0"}, {"light", "300"},
                        {"shared", "1"},        {"colour", "1 0 0"}, {"target", "t1"}};
    al_property l2[] = {{"classname", "light"},
                        {"colour", "0 1 0"},
                        {"wait", "1"},
                        {"targetname", "t1"},
                        {"killtarget", "gone"}};
    al_property m1[] = {{"classname", "monster_x"}, {"target", "nowhere"}};
    al_property b1[] = {{"classname", "Base"}};
    al_property m2[] = {{"classname", "monster_x"}, {"allium_note", "mine"}};
    al_entity_desc ents[] = {
        {"worldspawn", 1, world, 3}, {"light", 5, l1, 6}, {"light", 12, l2, 5},
        {"monster_x", 20, m1, 2},    {"Base", 25, b1, 1}, {"monster_x", 30, m2, 2},
    };
    al_input input = {.entities = ents, .entity_count = 6};
    al_entdefs_check c;
    REQUIRE(al_entdefs_check_input(&set, &input, &c, &d) == AL_OK);
    REQUIRE(c.class_count == 2);
    CHECK(strcmp(c.classes[0].classname, "monster_x") == 0 && c.classes[0].count == 2 &&
          c.classes[0].first_entity == 3);
    CHECK(strcmp(c.classes[1].classname, "Base") == 0 && c.classes[1].count == 1);
    REQUIRE(c.key_count == 2);
    CHECK(strcmp(c.keys[0].key, "colour") == 0 && c.keys[0].count == 2 &&
          c.keys[0].first_entity == 1 && strcmp(c.keys[0].classname, "light") == 0);
    CHECK(strcmp(c.keys[1].key, "wait") == 0 && c.keys[1].count == 1);
    CHECK(c.missing_targets == 2); /* "gone" and "nowhere"; t1 is named */
    /* One warning per finding, naming the entity and its line. */
    CHECK(d.count == 3 + 3 + 2 && al_diag_count(&d, AL_SEVERITY_ERROR) == 0);
    const al_diag *w = find_diag(&d, "defines no key 'wait'");
    CHECK(w && w->entity == 2 && w->line == 12 && w->kind == AL_DIAG_ENTITY);
    w = find_diag(&d, "killtarget 'gone' is the targetname of no entity");
    CHECK(w && w->entity == 2);
    w = find_diag(&d, "no entity definition names the class 'Base'");
    CHECK(w && w->entity == 4 && w->line == 25);
    al_entdefs_check_clear(&c);
    al_entdefs_check_clear(&c);
    al_entdefs_clear(&set);
    al_diag_list_clear(&d);
}

CHECK_TEST(map_files, "/entdefs/map/worldspawn-names-definition-files")
{
    al_property keys[] = {{"classname", "worldspawn"},
                          {"_tb_def", "external:defs/mod.fgd"},
                          {"allium_defs", " extra.def ; /abs/other.fgd;;"}};
    al_entity_desc world = {"worldspawn", 1, keys, 3};
    char *paths[4];
    int n = al_entdefs_map_files(&world, "/maps", paths, 4);
    REQUIRE(n == 3);
    CHECK(strcmp(paths[0], "/maps/defs/mod.fgd") == 0);
    CHECK(strcmp(paths[1], "/maps/extra.def") == 0);
    CHECK(strcmp(paths[2], "/abs/other.fgd") == 0);
    for (int i = 0; i < n; i++) free(paths[i]);
    CHECK(al_entdefs_map_files(&world, "/maps", paths, 1) == 1); /* at most MAX */
    free(paths[0]);
    keys[1].value = "builtin:Quake.fgd"; /* TrenchBroom's own files are not read */
    keys[2].value = "";
    CHECK(al_entdefs_map_files(&world, "/maps", paths, 4) == 0);
    CHECK(al_entdefs_map_files(NULL, "/maps", paths, 4) == 0);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') work_dir = argv[1];
    return check_main(argc, argv);
}
