/* The command-line tools, run as a user runs them: report keys, exit status, errors.
 * Arguments: allium-compile allium-bench sample.map scratch-dir. */
#include "check.h"
#include "doc-fixture.h"
#include "mapgen.h"
#include "entdefs/entdefs.h"
#include "store/document.h"
#include "textures/wad-write.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *compile_tool, *bench_tool, *sample_map, *scratch;

/* Runs COMMAND, capturing stdout into OUT (malloc'd); returns the exit status. */
static int run(const char *command, char **out)
{
    FILE *p = popen(command, "r");
    if (!p) return -1;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (n + 1 >= cap) buf = realloc(buf, cap *= 2);
    }
    buf[n] = '\0';
    int status = pclose(p);
    if (out) *out = buf;
    else free(buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static cJSON *path(cJSON *o, const char *a, const char *b)
{
    cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(x, b) : x;
}

CHECK_TEST(compile_json, "/tools/allium-compile-json-has-the-report-keys")
{
    char cmd[4096], *out;
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 --json '%s'", compile_tool, sample_map);
    REQUIRE(run(cmd, &out) == 0);
    cJSON *r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    CHECK(cJSON_IsString(path(r, "input", NULL)));
    CHECK(cJSON_IsNumber(path(r, "brushes", NULL)) && path(r, "brushes", NULL)->valuedouble > 10);
    CHECK(cJSON_IsNumber(path(r, "entities", NULL)));
    CHECK(cJSON_IsNumber(path(r, "invalid_brushes", NULL)));
    CHECK(path(r, "invalid_brushes", NULL)->valuedouble == 0);
    cJSON *hulls = path(r, "hulls", NULL);
    CHECK(cJSON_GetArraySize(hulls) == 4);
    cJSON *h1 = cJSON_GetArrayItem(hulls, 1);
    CHECK(strcmp(cJSON_GetObjectItem(h1, "name")->valuestring, "stand") == 0);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(h1, "mins")) == 3);
    cJSON *bsp = path(path(r, "stages", NULL), "bsp", NULL);
    for (const char *k = "ms\0nodes\0leaves\0blocks\0"; *k; k += strlen(k) + 1)
        CHECK_MSG(cJSON_IsNumber(cJSON_GetObjectItem(bsp, k)), "stages.bsp.%s missing", k);
    CHECK(cJSON_IsNumber(path(r, "peak_rss_kb", NULL)));
    CHECK(cJSON_IsArray(path(r, "diagnostics", NULL)));
    cJSON_Delete(r);
}

static long file_size(const char *file);

/* --bsp: a .map and a document write a BSP29 (with its .lit when lit) that the report
 * describes; a bad --bsp-format is a usage error; a map past BSP29's limits is refused
 * with the limit named and an older file of that name left as it was. */
CHECK_TEST(compile_bsp, "/tools/allium-compile-bsp-writes-a-quake-bsp")
{
    char bsp[600], lit[600], doc[600], cmd[4096], *out;
    snprintf(bsp, sizeof bsp, "%s/tools-sample.bsp", scratch);
    snprintf(lit, sizeof lit, "%s/tools-sample.lit", scratch);
    snprintf(doc, sizeof doc, "%s/tools-bsp.allium", scratch);
    unlink(bsp), unlink(lit), unlink(doc);
    snprintf(cmd, sizeof cmd,
             "'%s' --luxel 64 --rad-residual 0.3 --json --bsp '%s' '%s' 2>/dev/null", compile_tool,
             bsp, sample_map);
    REQUIRE(run(cmd, &out) == 0);
    cJSON *r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    cJSON *b = path(r, "bsp", NULL);
    REQUIRE(b);
    CHECK(strcmp(path(b, "format", NULL)->valuestring, "bsp29") == 0);
    CHECK(path(b, "bytes", NULL)->valuedouble == (double) file_size(bsp));
    CHECK(path(b, "models", NULL)->valuedouble >= 1 && path(b, "faces", NULL)->valuedouble > 0);
    double lighting = path(b, "lighting_bytes", NULL)->valuedouble;
    CHECK(lighting > 0 && file_size(lit) == (long) (8 + 3 * lighting));
    cJSON_Delete(r);
    /* The header: 29, then the entities lump first, naming the worldspawn. */
    FILE *f = fopen(bsp, "rb");
    unsigned char head[12] = {0};
    CHECK(f && fread(head, 1, sizeof head, f) == sizeof head && head[0] == 29 && head[1] == 0);
    if (f) fclose(f);
    /* Without light: no .lit. A document, as BSP2. */
    unlink(lit);
    snprintf(cmd, sizeof cmd, "'%s' --no-rad -o '%s' '%s' >/dev/null 2>&1", compile_tool, doc,
             sample_map);
    REQUIRE(run(cmd, NULL) == 0);
    snprintf(cmd, sizeof cmd, "'%s' --no-rad --json --bsp '%s' --bsp-format bsp2 '%s' 2>/dev/null",
             compile_tool, bsp, doc);
    REQUIRE(run(cmd, &out) == 0);
    r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    CHECK(strcmp(path(path(r, "bsp", NULL), "format", NULL)->valuestring, "bsp2") == 0);
    CHECK(path(path(r, "bsp", NULL), "lighting_bytes", NULL)->valuedouble == 0);
    cJSON_Delete(r);
    CHECK(file_size(lit) < 0);
    f = fopen(bsp, "rb");
    CHECK(f && fread(head, 1, 4, f) == 4 && memcmp(head, "BSP2", 4) == 0);
    if (f) fclose(f);
    /* A bad format is a usage error. */
    snprintf(cmd, sizeof cmd, "'%s' --bsp '%s' --bsp-format bsp30 '%s' 2>&1", compile_tool, bsp,
             sample_map);
    CHECK(run(cmd, &out) == 2);
    CHECK(strstr(out, "bsp30") != NULL);
    free(out);
    /* A --palette that is not 768 bytes fails, naming the file; one that is is taken. */
    char palette[600];
    snprintf(palette, sizeof palette, "%s/tools-palette.lmp", scratch);
    FILE *pf = fopen(palette, "wb");
    REQUIRE(pf);
    for (int i = 0; i < 767; i++) fputc(i & 255, pf);
    fclose(pf);
    snprintf(cmd, sizeof cmd, "'%s' --no-rad --bsp '%s' --palette '%s' '%s' 2>&1 >/dev/null",
             compile_tool, bsp, palette, sample_map);
    CHECK(run(cmd, &out) == 1);
    CHECK(strstr(out, "tools-palette.lmp: not a palette") != NULL);
    free(out);
    pf = fopen(palette, "ab");
    REQUIRE(pf);
    fputc(0, pf);
    fclose(pf);
    CHECK(run(cmd, NULL) == 0);
    /* Past BSP29's 16-bit bounds: refused, the limit named, the older file kept. */
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_room(g, 40000, 0, 0, 40256, 256, 128, 16, "wall");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 40128, 128, 32);
    char far[600];
    snprintf(far, sizeof far, "%s/tools-far.map", scratch);
    REQUIRE(mapgen_save(g, far));
    mapgen_destroy(g);
    long before = file_size(bsp);
    snprintf(cmd, sizeof cmd, "'%s' --no-rad --bsp '%s' '%s' 2>&1 >/dev/null", compile_tool, bsp,
             far);
    CHECK(run(cmd, &out) == 1);
    CHECK_MSG(strstr(out, "16-bit") && strstr(out, "bsp2"), "%s", out);
    free(out);
    CHECK(file_size(bsp) == before);
    unlink(bsp), unlink(lit), unlink(doc), unlink(far);
}

/* The map's WADs, as a mapper's "wad" key names them (a Windows path, and a WAD that is
 * nowhere): found by their file names in a --texture-path folder, the textures counted,
 * the missing ones named, and the WAD that is not found named on standard error. */
CHECK_TEST(compile_textures, "/tools/allium-compile-finds-the-maps-wads-and-counts-its-textures")
{
    uint8_t pixels[16 * 16] = {0};
    al_wad_texture_desc t[2] = {{"stone", 16, 16, pixels, NULL}, {"FLOOR", 16, 16, pixels, NULL}};
    size_t size;
    uint8_t *wad = al_wad_write(2, t, 2, NULL, &size);
    REQUIRE(wad);
    char folder[600], file[700], map[700];
    snprintf(folder, sizeof folder, "%s/wads", scratch);
    mkdir(folder, 0755);
    snprintf(file, sizeof file, "%s/base.wad", folder);
    FILE *f = fopen(file, "wb");
    REQUIRE(f && fwrite(wad, 1, size, f) == size);
    fclose(f);
    free(wad);
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "wad", "C:\\quake\\id1\\gfx\\base.wad;/nowhere/extra.wad");
    mapgen_room(g, 0, 0, 0, 256, 256, 128, 16, "stone");
    mapgen_box(g, 64, 64, 0, 128, 128, 32, "floor");
    mapgen_box(g, 160, 160, 0, 192, 192, 32, "crate");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 32, 32, 40);
    snprintf(map, sizeof map, "%s/textured.map", scratch);
    REQUIRE(mapgen_save(g, map));
    mapgen_destroy(g);
    char cmd[4096], *out;
    snprintf(cmd, sizeof cmd, "'%s' --no-rad --json --texture-path '%s' '%s' 2>'%s.err'",
             compile_tool, folder, map, map);
    REQUIRE(run(cmd, &out) == 0);
    cJSON *r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    cJSON *m = path(r, "materials", NULL);
    CHECK(cJSON_IsNumber(path(m, "textures_found", NULL)) &&
          path(m, "textures_found", NULL)->valueint == 2);
    CHECK(path(m, "textures_missing", NULL) && path(m, "textures_missing", NULL)->valueint == 1);
    cJSON *missing = path(m, "missing", NULL);
    CHECK(cJSON_GetArraySize(missing) == 1 &&
          strcmp(cJSON_GetArrayItem(missing, 0)->valuestring, "crate") == 0);
    cJSON *sources = path(m, "sources", NULL);
    CHECK(cJSON_GetArraySize(sources) == 1 &&
          strstr(cJSON_GetArrayItem(sources, 0)->valuestring, "wads/base.wad"));
    cJSON_Delete(r);
    snprintf(cmd, sizeof cmd, "cat '%s.err'", map);
    REQUIRE(run(cmd, &out) == 0);
    CHECK_MSG(strstr(out, "the wad \"/nowhere/extra.wad\" was not found"), "stderr: %s", out);
    free(out);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static cJSON *find_entry(cJSON *array, const char *a, const char *value_a, const char *b,
                         const char *value_b)
{
    cJSON *item;
    cJSON_ArrayForEach(item, array)
    {
        cJSON *x = cJSON_GetObjectItem(item, a), *y = b ? cJSON_GetObjectItem(item, b) : NULL;
        if (cJSON_IsString(x) && strcmp(x->valuestring, value_a) == 0 &&
            (!b || (cJSON_IsString(y) && strcmp(y->valuestring, value_b) == 0)))
            return item;
    }
    return NULL;
}

/* A map whose entities use classes and keys that two definition files (an FGD, then a
 * DEF layered over it) define in part: the report names what no definition names, with
 * counts; the bundled Quake file is the default; a bad definition is named on standard
 * error and skipped, a missing file fails the run. */
CHECK_TEST(compile_defs, "/tools/allium-compile-checks-entities-against-definitions")
{
    char map[700], fgd[700], def[700], bad[700];
    snprintf(map, sizeof map, "%s/entities.map", scratch);
    snprintf(fgd, sizeof fgd, "%s/game.fgd", scratch);
    snprintf(def, sizeof def, "%s/mod.def", scratch);
    snprintf(bad, sizeof bad, "%s/bad.fgd", scratch);
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "wad", "none.wad");
    mapgen_key(g, "_tb_textures", "textures");
    mapgen_key(g, "worldfoo", "1");
    mapgen_room(g, 0, 0, 0, 256, 256, 128, 16, "stone");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 32, 32, 40);
    for (int i = 0; i < 2; i++) {
        mapgen_begin_entity(g, "monster_new");
        mapgen_keyf(g, "origin", "%d 100 40", 64 + 32 * i);
        mapgen_key(g, "target", i ? "nobody" : "p1");
        mapgen_end_entity(g);
    }
    mapgen_begin_entity(g, "light");
    mapgen_key(g, "origin", "128 128 64");
    mapgen_key(g, "light", "200");
    mapgen_key(g, "colour", "1 0 0");
    mapgen_key(g, "targetname", "p1");
    mapgen_end_entity(g);
    REQUIRE(mapgen_save(g, map));
    mapgen_destroy(g);
    write_text(fgd, "@SolidClass = worldspawn [ wad(string) ]\n"
                    "@BaseClass = Lit [ light(integer) ]\n"
                    "@PointClass size(-16 -16 -24, 16 16 32) = info_player_start []\n"
                    "@PointClass base(Lit) = light []\n");
    write_text(def, "/*QUAKED monster_new (1 0 0) (-16 -16 -24) (16 16 40) AMBUSH\n"
                    "A new monster.\n\"target\" fired when it dies\n*/\n");
    write_text(bad, "@PointClass = fine []\n@PointClass size(1 2) = broken []\n");

    char cmd[4096], *out;
    snprintf(cmd, sizeof cmd, "'%s' --no-rad --no-cache --json --defs '%s' '%s' 2>/dev/null",
             compile_tool, fgd, map);
    REQUIRE(run(cmd, &out) == 0);
    cJSON *r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    cJSON *e = path(r, "entity_definitions", NULL);
    REQUIRE(e);
    CHECK(cJSON_GetArraySize(path(e, "files", NULL)) == 1 &&
          strcmp(cJSON_GetArrayItem(path(e, "files", NULL), 0)->valuestring, fgd) == 0);
    CHECK(path(e, "classes", NULL)->valueint == 3 && path(e, "errors", NULL)->valueint == 0);
    cJSON *classes = path(e, "unknown_classes", NULL);
    cJSON *monster = find_entry(classes, "classname", "monster_new", NULL, NULL);
    CHECK(cJSON_GetArraySize(classes) == 1 && monster &&
          cJSON_GetObjectItem(monster, "count")->valueint == 2 &&
          cJSON_GetObjectItem(monster, "first_entity")->valueint == 2);
    cJSON *keys = path(e, "unknown_keys", NULL);
    CHECK(cJSON_GetArraySize(keys) == 2);
    CHECK(find_entry(keys, "classname", "worldspawn", "key", "worldfoo"));
    CHECK(find_entry(keys, "classname", "light", "key", "colour"));
    CHECK(path(e, "missing_targets", NULL)->valueint == 1);
    /* The warnings are the report's diagnostics too. */
    int warnings = 0;
    cJSON *d;
    cJSON_ArrayForEach(d, path(r, "diagnostics", NULL))
    {
        const char *m = cJSON_GetObjectItem(d, "message")->valuestring;
        warnings += strstr(m, "no entity definition names the class 'monster_new'") ||
                    strstr(m, "defines no key") || strstr(m, "is the targetname of no entity");
    }
    CHECK(warnings == 2 + 2 + 1);
    cJSON_Delete(r);

    /* The DEF layered over the FGD defines the monster and its target key. */
    snprintf(cmd, sizeof cmd,
             "'%s' --no-rad --no-cache --json --defs '%s' --defs '%s' '%s' 2>/dev/null",
             compile_tool, fgd, def, map);
    REQUIRE(run(cmd, &out) == 0);
    r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    e = path(r, "entity_definitions", NULL);
    CHECK(cJSON_GetArraySize(path(e, "files", NULL)) == 2 &&
          path(e, "classes", NULL)->valueint == 4);
    CHECK(cJSON_GetArraySize(path(e, "unknown_classes", NULL)) == 0);
    CHECK(cJSON_GetArraySize(path(e, "unknown_keys", NULL)) == 2);
    cJSON_Delete(r);

    /* By default the bundled Quake definitions, which define all of these but worldfoo
     * (light's "colour" is not a Quake key either). */
    al_entdefs bundled = {0};
    REQUIRE(al_entdefs_load_bundled(&bundled, NULL) == AL_OK);
    int concrete = 0;
    for (int i = 0; i < bundled.class_count; i++)
        concrete += bundled.classes[i].kind != AL_ENTDEF_BASE;
    al_entdefs_clear(&bundled);
    snprintf(cmd, sizeof cmd, "'%s' --no-rad --no-cache --json '%s' 2>/dev/null", compile_tool,
             map);
    REQUIRE(run(cmd, &out) == 0);
    r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    e = path(r, "entity_definitions", NULL);
    CHECK(cJSON_GetArraySize(path(e, "files", NULL)) == 1 &&
          strcmp(cJSON_GetArrayItem(path(e, "files", NULL), 0)->valuestring, "quake.fgd") == 0);
    CHECK(path(e, "classes", NULL)->valueint == concrete);
    CHECK(cJSON_GetArraySize(path(e, "unknown_classes", NULL)) == 1);
    CHECK(cJSON_GetArraySize(path(e, "unknown_keys", NULL)) == 2);
    cJSON_Delete(r);

    /* A map that names the DEF in its worldspawn: read after the bundled file. */
    char named[700];
    snprintf(named, sizeof named, "%s/named-defs.map", scratch);
    snprintf(cmd, sizeof cmd,
             "sed 's|\"wad\" \"none.wad\"|\"allium_defs\" \"mod.def\"|' '%s' > '%s'", map, named);
    REQUIRE(run(cmd, NULL) == 0);
    snprintf(cmd, sizeof cmd, "'%s' --no-rad --no-cache --json '%s' 2>/dev/null", compile_tool,
             named);
    REQUIRE(run(cmd, &out) == 0);
    r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    e = path(r, "entity_definitions", NULL);
    CHECK(cJSON_GetArraySize(path(e, "files", NULL)) == 2 &&
          strstr(cJSON_GetArrayItem(path(e, "files", NULL), 1)->valuestring, "/mod.def"));
    CHECK(path(e, "classes", NULL)->valueint == concrete + 1);
    CHECK(cJSON_GetArraySize(path(e, "unknown_classes", NULL)) == 0);
    cJSON_Delete(r);

    /* The human report prints the warnings and a summary line. */
    snprintf(cmd, sizeof cmd, "'%s' --no-rad --no-cache --defs '%s' '%s' 2>&1", compile_tool, fgd,
             map);
    REQUIRE(run(cmd, &out) == 0);
    CHECK_MSG(strstr(out, "warning: entity 2: no entity definition names the class 'monster_new'"),
              "%s", out);
    CHECK_MSG(strstr(out, "entity definitions: 3 classes from 1 files; 1 unknown classes, 2 "
                          "unknown keys, 1 targets that no entity names"),
              "%s", out);
    free(out);

    /* A bad definition: named with line and column, skipped; the run goes on. */
    snprintf(cmd, sizeof cmd, "'%s' --no-rad --no-cache --json --defs '%s' '%s' 2>&1 >/dev/null",
             compile_tool, bad, map);
    REQUIRE(run(cmd, &out) == 0);
    char expected[800];
    snprintf(expected, sizeof expected, "%s:2:13: error: size() needs six numbers", bad);
    CHECK_MSG(strstr(out, expected), "stderr: %s", out);
    free(out);
    /* A definitions file that cannot be read fails the run, naming it. */
    snprintf(cmd, sizeof cmd, "'%s' --no-rad --no-cache --defs '%s/none.fgd' '%s' 2>&1 >/dev/null",
             compile_tool, scratch, map);
    CHECK(run(cmd, &out) == 1);
    CHECK_MSG(strstr(out, "none.fgd: error: cannot read: No such file or directory"), "stderr: %s",
              out);
    free(out);
}

CHECK_TEST(compile_hulls, "/tools/allium-compile-hull-and-block-options")
{
    char cmd[4096], *out;
    snprintf(cmd, sizeof cmd,
             "'%s' --json --hull tiny=-4,-4,-4,4,4,4 --hull 'big=-40,-40,-40,40,40,40' "
             "--block-size 512 '%s'",
             compile_tool, sample_map);
    REQUIRE(run(cmd, &out) == 0);
    cJSON *r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    cJSON *hulls = path(r, "hulls", NULL);
    REQUIRE(cJSON_GetArraySize(hulls) == 3); /* point kept first */
    CHECK(strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(hulls, 0), "name")->valuestring,
                 "point") == 0);
    CHECK(strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(hulls, 2), "name")->valuestring,
                 "big") == 0);
    cJSON_Delete(r);
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 --hull bad=1,2 '%s' 2>&1", compile_tool, sample_map);
    CHECK(run(cmd, &out) == 2);
    CHECK(strstr(out, "6 numbers") != NULL);
    free(out);
}

CHECK_TEST(compile_errors, "/tools/allium-compile-reports-bad-files-with-line-and-column")
{
    char file[4096], cmd[8192], *out;
    snprintf(file, sizeof file, "%s/broken.map", scratch);
    FILE *f = fopen(file, "w");
    REQUIRE(f);
    fputs("{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 1 0 0 )\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 '%s' 2>&1", compile_tool, file);
    CHECK(run(cmd, &out) == 1);
    /* The file ends where the third point should start. */
    CHECK_MSG(strstr(out, "broken.map:5:1: error") != NULL && strstr(out, "end of the file") &&
                  !strstr(out, "skipped"),
              "output: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 /nonexistent.map 2>&1", compile_tool);
    CHECK(run(cmd, &out) == 1);
    CHECK(strstr(out, "cannot open") != NULL);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 2>&1", compile_tool);
    CHECK(run(cmd, &out) == 2);
    CHECK(strstr(out, "usage") != NULL);
    free(out);
}

static cJSON *compile_report(const char *map, const char *extra)
{
    char cmd[4096], *out;
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 --json %s '%s'", compile_tool, extra, map);
    int status = run(cmd, &out);
    cJSON *r = status == 0 ? cJSON_Parse(out) : NULL;
    free(out);
    return r;
}

static bool exists(const char *file)
{
    struct stat st;
    return stat(file, &st) == 0;
}

static char *slurp(const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t) n + 1);
    if (s && fread(s, 1, (size_t) n, f) != (size_t) n) n = 0;
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

CHECK_TEST(documents, "/tools/allium-compile-imports-compiles-from-cache-and-exports")
{
    char doc[600], back[600], again[600], cmd[4096], *out;
    snprintf(doc, sizeof doc, "%s/tools-sample.allium", scratch);
    snprintf(back, sizeof back, "%s/tools-sample-back.map", scratch);
    snprintf(again, sizeof again, "%s/tools-sample-again.allium", scratch);
    unlink(doc), unlink(back), unlink(again);
    /* Import: the new document is compiled and its compile stored. */
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 --json -o '%s' '%s' 2>/dev/null", compile_tool, doc, sample_map);
    REQUIRE(run(cmd, &out) == 0);
    cJSON *cold = cJSON_Parse(out);
    free(out);
    REQUIRE(cold);
    CHECK(strcmp(path(path(cold, "cache", NULL), "result", NULL)->valuestring, "stored") == 0);
    /* Again: from the cache, the same world. */
    cJSON *warm = compile_report(doc, "");
    REQUIRE(warm);
    CHECK(strcmp(path(path(warm, "cache", NULL), "result", NULL)->valuestring, "hit") == 0);
    check_note("cold compile %.0f ms, warm load %.1f ms",
               path(cold, "compile_ms", NULL)->valuedouble,
               path(path(warm, "cache", NULL), "ms", NULL)->valuedouble);
    for (const char *k = "brushes\0entities\0collision_brushes\0models\0"; *k; k += strlen(k) + 1)
        CHECK_MSG(path(cold, k, NULL)->valuedouble == path(warm, k, NULL)->valuedouble,
                  "%s differs", k);
    CHECK(path(path(path(cold, "stages", NULL), "bsp", NULL), "nodes", NULL)->valuedouble ==
          path(path(path(warm, "stages", NULL), "bsp", NULL), "nodes", NULL)->valuedouble);
    /* The light the last run ended in is kept too: the warm run goes on from it, and
     * being at its residual already, shoots nothing more. A lower residual goes on from
     * there and keeps the new state; another luxel size is other patches. */
    cJSON *rad = path(path(warm, "stages", NULL), "rad", NULL);
    REQUIRE(rad && path(rad, "cache", NULL));
    CHECK(strcmp(path(rad, "cache", NULL)->valuestring, "hit") == 0);
    double cached = path(rad, "cached_shots", NULL)->valuedouble;
    CHECK(cached > 0 && path(rad, "shots", NULL)->valuedouble == cached);
    cJSON *further = compile_report(doc, "--rad-residual 0.1");
    REQUIRE(further);
    rad = path(path(further, "stages", NULL), "rad", NULL);
    CHECK(strcmp(path(rad, "cache", NULL)->valuestring, "hit") == 0);
    CHECK(path(rad, "cached_shots", NULL)->valuedouble == cached);
    CHECK(path(rad, "shots", NULL)->valuedouble > cached && cJSON_IsTrue(path(rad, "stored", NULL)));
    double further_shots = path(rad, "shots", NULL)->valuedouble;
    cJSON *resumed = compile_report(doc, "");
    REQUIRE(resumed);
    rad = path(path(resumed, "stages", NULL), "rad", NULL);
    CHECK(path(rad, "cached_shots", NULL)->valuedouble == further_shots);
    cJSON *finer = compile_report(doc, "--luxel 32");
    REQUIRE(finer);
    rad = path(path(finer, "stages", NULL), "rad", NULL);
    CHECK(strcmp(path(rad, "cache", NULL)->valuestring, "hit") != 0);
    cJSON_Delete(further), cJSON_Delete(resumed), cJSON_Delete(finer);
    /* Other options are another compile: not taken from the cache. */
    cJSON *other = compile_report(doc, "--block-size 512");
    REQUIRE(other);
    CHECK(strcmp(path(path(other, "cache", NULL), "result", NULL)->valuestring, "hit") != 0);
    /* The same .map from a plain compile agrees with the document's compile. */
    cJSON *plain = compile_report(sample_map, "");
    REQUIRE(plain);
    CHECK(path(path(path(plain, "stages", NULL), "bsp", NULL), "nodes", NULL)->valuedouble ==
          path(path(path(cold, "stages", NULL), "bsp", NULL), "nodes", NULL)->valuedouble);
    cJSON_Delete(cold), cJSON_Delete(warm), cJSON_Delete(other), cJSON_Delete(plain);

    /* Export, and import the export: the same map text again. */
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 -o '%s' '%s'", compile_tool, back, doc);
    REQUIRE(run(cmd, NULL) == 0);
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 -o '%s' '%s' >/dev/null 2>&1", compile_tool, again, back);
    REQUIRE(run(cmd, NULL) == 0);
    char back2[600];
    snprintf(back2, sizeof back2, "%s/tools-sample-back2.map", scratch);
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 -o '%s' '%s'", compile_tool, back2, again);
    REQUIRE(run(cmd, NULL) == 0);
    char *t1 = slurp(back), *t2 = slurp(back2);
    REQUIRE(t1 && t2);
    CHECK(strcmp(t1, t2) == 0);
    free(t1), free(t2);

    /* An existing file is never written over by an import. */
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 -o '%s' '%s' 2>&1", compile_tool, again, sample_map);
    CHECK(run(cmd, &out) == 1);
    CHECK(strstr(out, "exists already") != NULL);
    free(out);
}

CHECK_TEST(failed_import, "/tools/a-failed-import-leaves-no-document")
{
    char bad[600], doc[600], cmd[4096], *out;
    snprintf(bad, sizeof bad, "%s/tools-bad.map", scratch);
    snprintf(doc, sizeof doc, "%s/tools-bad.allium", scratch);
    unlink(doc);
    FILE *f = fopen(bad, "w");
    REQUIRE(f);
    fputs("{\n\"classname\" \"worldspawn\"\n{\n( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) x 0 0 0 1 1\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' --luxel 64 --rad-residual 0.3 -o '%s' '%s' 2>&1", compile_tool, doc, bad);
    CHECK(run(cmd, &out) == 1);
    CHECK(strstr(out, "tools-bad.map:") != NULL);
    free(out);
    CHECK(!exists(doc));
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

/* Runs "allium-compile -o OUT MAP" (no light, no PVS), killed with SIGKILL after KILL_MS
 * (never if negative); its exit status, or -1 if it was killed. */
static int import_killed_after(const char *map, const char *out, double kill_ms)
{
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(compile_tool, compile_tool, "--no-rad", "--pvs", "none", "-o", out, map,
              (char *) NULL);
        _exit(127);
    }
    if (pid < 0) return -2;
    if (kill_ms >= 0) {
        long ns = (long) (kill_ms * 1e6);
        struct timespec pause = {ns / 1000000000L, ns % 1000000000L};
        nanosleep(&pause, NULL);
        kill(pid, SIGKILL);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Files in the scratch folder whose names start with PREFIX. */
static int files_starting(const char *prefix)
{
    DIR *d = opendir(scratch);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* A document's entity and brush counts; false if it does not open. */
static bool document_counts(const char *file, int *entities, int *brushes)
{
    al_doc *doc = NULL;
    al_diag_list d = {0};
    al_status st = al_doc_open(file, AL_DOC_READ_ONLY, &doc, &d);
    if (st != AL_OK) check_note("%s: %s", file, d.count ? d.items[0].message : al_status_name(st));
    al_diag_list_clear(&d);
    if (st != AL_OK) return false;
    *entities = al_doc_count(doc, "entities");
    *brushes = al_doc_count(doc, "brushes");
    al_doc_close(doc);
    return true;
}

CHECK_TEST(killed_import, "/tools/a-killed-import-leaves-the-document-absent-or-complete")
{
    /* A map that takes a while to import; the kills land at random moments from the start
     * to the end of a whole run (import, then compile). */
    const char *map = getenv("ALLIUM_GENERATED_MAP");
    if (!map || !exists(map)) map = sample_map;
    char target[600];
    snprintf(target, sizeof target, "%s", fixture_path("killed.allium")); /* and its side files */
    double t0 = now_ms();
    REQUIRE(import_killed_after(map, target, -1) == 0);
    double run_ms = now_ms() - t0;
    int entities = 0, brushes = 0;
    REQUIRE(document_counts(target, &entities, &brushes));
    REQUIRE(brushes > 0);
    srand(7);
    int absent = 0, complete = 0;
    for (int round = 0; round < 30; round++) {
        fixture_path("killed.allium");
        double at = run_ms * 1.2 * (double) rand() / RAND_MAX;
        import_killed_after(map, target, at);
        if (!exists(target)) {
            absent++;
            continue;
        }
        int e = 0, b = 0;
        bool opens = document_counts(target, &e, &b);
        CHECK_MSG(opens && e == entities && b == brushes,
                  "killed after %.0f ms: %s with %d entities and %d brushes (complete: %d, %d)", at,
                  opens ? "a document" : "a file that does not open", e, b, entities, brushes);
        complete++;
    }
    check_note("a whole run took %.0f ms; after the kills the document was absent %d times and "
               "complete %d times; %d temporary files were left",
               run_ms, absent, complete, files_starting(".killed.allium.importing-"));
    /* What the kills left does not block the next import, which removes it. */
    fixture_path("killed.allium");
    CHECK(import_killed_after(map, target, -1) == 0);
    CHECK(exists(target));
    CHECK_MSG(files_starting(".killed.allium.importing-") == 0, "%d temporary files are left",
              files_starting(".killed.allium.importing-"));
    fixture_path("killed.allium");
}

/* Runs COMMAND with stderr captured too; its exit status, the output in *OUT. */
static int run_all(const char *command, char **out)
{
    char with_errors[4200];
    snprintf(with_errors, sizeof with_errors, "%s 2>&1", command);
    return run(with_errors, out);
}

static long file_size(const char *file)
{
    struct stat st;
    return stat(file, &st) == 0 ? (long) st.st_size : -1;
}

CHECK_TEST(empty_files, "/tools/an-empty-document-is-refused-an-empty-map-is-named-empty")
{
    char doc[600], map[600], imported[600], side[700], cmd[4096], *out;
    snprintf(doc, sizeof doc, "%s/zero.allium", scratch);
    snprintf(map, sizeof map, "%s/zero.map", scratch);
    snprintf(imported, sizeof imported, "%s/zero-imported.allium", scratch);
    FILE *f = fopen(doc, "w");
    REQUIRE(f && fclose(f) == 0);
    f = fopen(map, "w");
    REQUIRE(f && fclose(f) == 0);
    unlink(imported);
    /* A document of zero bytes is not compiled as an empty map. */
    snprintf(cmd, sizeof cmd, "'%s' --json '%s'", compile_tool, doc);
    CHECK(run_all(cmd, &out) == 1);
    CHECK_MSG(strstr(out, "zero.allium") && strstr(out, "is empty, not an Allium map") &&
                  !strstr(out, "\"brushes\""),
              "output: %s", out);
    free(out);
    snprintf(side, sizeof side, "%s-wal", doc);
    CHECK(file_size(doc) == 0 && !exists(side));
    /* A .map of zero bytes compiles (and imports) as the empty map it is, and says so. */
    snprintf(cmd, sizeof cmd, "'%s' --no-rad '%s'", compile_tool, map);
    CHECK(run_all(cmd, &out) == 0);
    CHECK_MSG(strstr(out, "zero.map: warning: the file is empty (0 bytes)"), "output: %s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' --no-rad -o '%s' '%s'", compile_tool, imported, map);
    CHECK(run_all(cmd, &out) == 0);
    CHECK_MSG(strstr(out, "zero.map: warning: the file is empty (0 bytes)") && exists(imported),
              "output: %s", out);
    free(out);
    CHECK(file_size(map) == 0);
    fixture_path("zero-imported.allium");
}

CHECK_TEST(folder, "/tools/a-folder-given-as-the-map-is-named-a-folder")
{
    const char *names[] = {"folder.map", "folder.allium"};
    for (int i = 0; i < 2; i++) {
        char dir[600], cmd[4096], *out;
        snprintf(dir, sizeof dir, "%s/%s", scratch, names[i]);
        mkdir(dir, 0755);
        REQUIRE(exists(dir));
        snprintf(cmd, sizeof cmd, "'%s' --json '%s'", compile_tool, dir);
        CHECK(run_all(cmd, &out) == 1);
        CHECK_MSG(strstr(out, names[i]) && strstr(out, "is a folder, not a map"), "output: %s",
                  out);
        free(out);
    }
}

CHECK_TEST(bench_outputs, "/tools/allium-bench-subcommands-print-json")
{
    char cmd[4096], *out;
    snprintf(cmd, sizeof cmd, "'%s' trace '%s' --count 20000", bench_tool, sample_map);
    REQUIRE(run(cmd, &out) == 0);
    cJSON *r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    for (const char *k = "median_ns\0traces_per_s\0oracle_checked\0oracle_mismatches\0"; *k;
         k += strlen(k) + 1)
        CHECK_MSG(cJSON_IsNumber(cJSON_GetObjectItem(r, k)), "trace.%s missing", k);
    CHECK(cJSON_GetObjectItem(r, "oracle_checked")->valuedouble > 0);
    CHECK(cJSON_GetObjectItem(r, "oracle_mismatches")->valuedouble == 0);
    cJSON_Delete(r);

    snprintf(cmd, sizeof cmd, "'%s' verify '%s' --points 20000 --traces 2000", bench_tool,
             sample_map);
    REQUIRE(run(cmd, &out) == 0);
    r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    CHECK(cJSON_GetObjectItem(r, "total_mismatches")->valuedouble == 0);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(r, "hulls")) == 4);
    cJSON_Delete(r);

    /* Entity definitions: one written here, with an include and one bad definition. */
    char main_fgd[700], base_fgd[700];
    snprintf(main_fgd, sizeof main_fgd, "%s/bench-main.fgd", scratch);
    snprintf(base_fgd, sizeof base_fgd, "%s/bench-base.fgd", scratch);
    write_text(base_fgd, "@BaseClass = B [ k(string) ]\n");
    write_text(main_fgd, "@include \"bench-base.fgd\"\n@PointClass base(B) = p []\n"
                         "@PointClass size(1) = bad []\n@SolidClass = s []\n");
    snprintf(cmd, sizeof cmd, "'%s' defs '%s' --runs 3 2>/dev/null", bench_tool, main_fgd);
    REQUIRE(run(cmd, &out) == 0);
    r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    CHECK(cJSON_GetObjectItem(r, "classes")->valueint == 2 &&
          cJSON_GetObjectItem(r, "base_classes")->valueint == 1 &&
          cJSON_GetObjectItem(r, "files")->valueint == 2 &&
          cJSON_GetObjectItem(r, "errors")->valueint == 1 &&
          cJSON_GetObjectItem(r, "runs")->valueint == 3);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(r, "ms_median")) &&
          cJSON_GetObjectItem(r, "ms_min")->valuedouble <=
              cJSON_GetObjectItem(r, "ms_median")->valuedouble);
    cJSON_Delete(r);

    snprintf(cmd, sizeof cmd, "'%s' compile '%s' --runs 3", bench_tool, sample_map);
    REQUIRE(run(cmd, &out) == 0);
    r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    CHECK(cJSON_IsNumber(path(path(r, "stages", NULL), "bsp", "ms")));
    CHECK(cJSON_GetObjectItem(r, "runs")->valuedouble == 3);
    cJSON_Delete(r);

    snprintf(cmd, sizeof cmd, "'%s' document '%s' --runs 2 --count 12 --scratch '%s'", bench_tool,
             sample_map, scratch);
    REQUIRE(run(cmd, &out) == 0);
    r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    for (const char *k = "import_ms\0open_and_build_input_ms\0edit_ms\0undo_ms\0redo_ms\0"
                         "edit_ms_synchronous_normal\0";
         *k; k += strlen(k) + 1)
        CHECK_MSG(cJSON_IsNumber(path(r, k, "median")), "document.%s.median missing", k);
    CHECK(path(r, "edit_ms", "count")->valuedouble == 12);
    cJSON_Delete(r);

    /* Live edits without the light stage: collision and portals, no light figures, and the
     * last world a full compile's (the exit status). */
    snprintf(cmd, sizeof cmd, "'%s' edit '%s' --edits 6 --tight-edits 0 --no-light", bench_tool,
             sample_map);
    REQUIRE(run(cmd, &out) == 0);
    r = cJSON_Parse(out);
    free(out);
    REQUIRE(r);
    CHECK(cJSON_IsNumber(path(r, "bsp_ms", "median")) &&
          cJSON_IsNumber(path(r, "portals_ms", "median")));
    CHECK(cJSON_GetObjectItem(r, "edits")->valueint == 6);
    CHECK(cJSON_GetObjectItem(r, "tree_differences_from_full_compile")->valueint == 0);
    CHECK_MSG(!cJSON_GetObjectItem(r, "rad_first_ms"), "edit --no-light printed light figures");
    cJSON_Delete(r);
}

CHECK_TEST(classify, "/tools/allium-bench-classify-answers-per-line")
{
    char cmd[4096], *out;
    /* The sample map's player start stands in empty space; far below the floor is void
     * (empty); just under the floor's top is solid for the stand hull. */
    snprintf(cmd, sizeof cmd,
             "printf '256 256 25\\n256 256 10\\n\\n0 0 -5000\\nbad line\\n' | '%s' classify '%s' "
             "--hull stand 2>/dev/null",
             bench_tool, sample_map);
    CHECK(run(cmd, &out) == 1); /* the bad line is reported */
    CHECK_MSG(strcmp(out, "0\n1\n0\n") == 0, "got: %s", out);
    free(out);
}

/* A sealed room [0, 1024] x [0, 1024] x [0, 512] of stone (floor at z 0) with a light 300
 * 128 units above the middle of the floor and worldspawn minimum light 20, written to
 * PATH. */
static bool write_light_room(const char *path)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "_minlight", "20");
    mapgen_room(g, 0, 0, 0, 1024, 1024, 512, 16, "stone");
    mapgen_end_entity(g);
    mapgen_light(g, 512, 512, 128, "300");
    mapgen_point_entity(g, "info_player_start", 200, 200, 64);
    bool ok = mapgen_save(g, path);
    mapgen_destroy(g);
    return ok;
}

CHECK_TEST(light, "/tools/allium-bench-light-prints-quake's-lightmap-value-per-point")
{
    char map[1024], cmd[4096], *out;
    snprintf(map, sizeof map, "%s/tools-light-room.map", scratch);
    REQUIRE(write_light_room(map));
    /* Points on the floor at 0, 100 and 300 units from under the light (the last beyond
     * its reach: the minimum light), one on a wall, and a bad line. Quake's lightmap holds
     * half a level: (300 - d) (0.5 + 0.5 cos) / 2, at least 20 / 2. */
    snprintf(cmd, sizeof cmd,
             "printf '512 512 0 0 0 1\n612 512 0 0 0 1\n812 512 0 0 0 1\n"
             "0 512 128 1 0 0\nbad\n' | '%s' light '%s' --direct 2>/dev/null",
             bench_tool, map);
    CHECK(run(cmd, &out) == 1); /* the bad line is reported */
    double got[4][3];
    int n = sscanf(out, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &got[0][0], &got[0][1],
                   &got[0][2], &got[1][0], &got[1][1], &got[1][2], &got[2][0], &got[2][1],
                   &got[2][2], &got[3][0], &got[3][1], &got[3][2]);
    REQUIRE_MSG(n == 12, "got: %s", out);
    free(out);
    const double r[3] = {0, 100, 300};
    for (int i = 0; i < 3; i++) {
        double d = hypot(r[i], 128);
        double want = fmax((300 - d) * (0.5 + 0.5 * 128 / d), 20) / 2;
        for (int k = 0; k < 3; k++)
            CHECK_MSG(fabs(got[i][k] - want) <= 0.05, "%g units out: %g, want %.1f", r[i],
                      got[i][k], want);
    }
    double d = hypot(512, 128), wall = fmax((300 - d) * (0.5 + 0.5 * 512 / d), 20) / 2;
    CHECK_MSG(fabs(got[3][0] - wall) <= 0.05, "the wall: %g, want %.1f", got[3][0], wall);

    /* Without --direct: the lightmap once the light has bounced, near the direct light
     * where that is strong; a point on no face is "- - -". */
    snprintf(cmd, sizeof cmd,
             "printf '512 512 0 0 0 1\n5000 5000 5000 0 0 1\n' | '%s' light '%s' "
             "--rad-residual 0.05 2>/dev/null",
             bench_tool, map);
    REQUIRE(run(cmd, &out) == 0);
    double total[3];
    char rest[64] = "";
    n = sscanf(out, "%lf %lf %lf %63[^\n]", &total[0], &total[1], &total[2], rest);
    CHECK_MSG(n == 4 && strcmp(rest, "- - -") == 0, "got: %s", out);
    CHECK_MSG(fabs(total[0] - 86) < 6, "under the light the lightmap shows %g (direct 86)",
              total[0]);
    free(out);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: test-tools allium-compile allium-bench MAP SCRATCH\n");
        return 2;
    }
    compile_tool = argv[1];
    fixture_set_dir(argv[4]);
    bench_tool = argv[2];
    sample_map = argv[3];
    scratch = argv[4];
    return check_main(argc - 4, argv + 4);
}
