/* Texture colours in the document's light: a room whose west wall has a red texture in a
 * WAD beside the map. allium-compile's way (the .map read, its materials coloured from the
 * WAD by al_texture_sources_colour_materials) and the document's way (the map imported,
 * the texture colours stored with al_doc_set_texture_colours as the editor stores them,
 * then al_doc_build_input) must give the same colours and the same bounced light; the
 * colours stay in the file across a reopen, a colour the designer chose wins, and
 * storing them is no undoable step. */
#include "check.h"
#include "doc-fixture.h"
#include "al-rad.h"
#include "al-entity-keys.h"
#include "al-world.h"
#include "mapfile/map-input.h"
#include "store/map-doc.h"
#include "textures/sources.h"
#include "textures/wad-write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The inside: 512 long (X), 128 wide, 128 high, walls 16 thick; the light 64 units in
 * from the west wall, halfway up. */
#define ROOM_X 256
#define ROOM_Y 64
#define ROOM_Z 128

/* Appends an axis-aligned brush from MN to MX (clockwise plane points seen from outside),
 * its top face (+Z) sixth. */
static void add_box(char *text, size_t size, const int mn[3], const int mx[3], const char *mat)
{
    size_t n = strlen(text);
    snprintf(text + n, size - n,
             "{\n"
             "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
             "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
             "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
             "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
             "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
             "( %d %d %d ) ( %d %d %d ) ( %d %d %d ) %s 0 0 0 1 1\n"
             "}\n",
             mn[0], mn[1], mn[2], mn[0], mn[1] + 1, mn[2], mn[0], mn[1], mn[2] + 1, mat, mx[0],
             mx[1], mx[2], mx[0], mx[1], mx[2] + 1, mx[0], mx[1] + 1, mx[2], mat, mn[0], mn[1],
             mn[2], mn[0], mn[1], mn[2] + 1, mn[0] + 1, mn[1], mn[2], mat, mx[0], mx[1], mx[2],
             mx[0] + 1, mx[1], mx[2], mx[0], mx[1], mx[2] + 1, mat, mn[0], mn[1], mn[2], mn[0] + 1,
             mn[1], mn[2], mn[0], mn[1] + 1, mn[2], mat, mx[0], mx[1], mx[2], mx[0], mx[1] + 1,
             mx[2], mx[0] + 1, mx[1], mx[2], mat);
}

/* The sealed room with its west wall in "paint" and the rest in "stone"; the worldspawn
 * names paint.wad. The floor is brush 0. */
static void room_text(char *text, size_t size)
{
    const int t = 16;
    snprintf(text, size, "{\n\"classname\" \"worldspawn\"\n\"wad\" \"paint.wad\"\n");
    const int boxes[6][2][3] = {
        {{-ROOM_X - t, -ROOM_Y - t, -t}, {ROOM_X + t, ROOM_Y + t, 0}},
        {{-ROOM_X - t, -ROOM_Y - t, ROOM_Z}, {ROOM_X + t, ROOM_Y + t, ROOM_Z + t}},
        {{-ROOM_X - t, -ROOM_Y - t, 0}, {-ROOM_X, ROOM_Y + t, ROOM_Z}},
        {{ROOM_X, -ROOM_Y - t, 0}, {ROOM_X + t, ROOM_Y + t, ROOM_Z}},
        {{-ROOM_X, -ROOM_Y - t, 0}, {ROOM_X, -ROOM_Y, ROOM_Z}},
        {{-ROOM_X, ROOM_Y, 0}, {ROOM_X, ROOM_Y + t, ROOM_Z}},
    };
    for (int i = 0; i < 6; i++)
        add_box(text, size, boxes[i][0], boxes[i][1], i == 2 ? "paint" : "stone");
    size_t n = strlen(text);
    snprintf(text + n, size - n,
             "}\n{\n\"classname\" \"light\"\n\"origin\" \"%d 0 64\"\n\"light\" \"300\"\n}\n",
             -ROOM_X + 64);
}

/* Where paint.wad is written (fixture_path removes the file it names, so it is asked
 * once). */
static char wad_path[1024];

/* Writes paint.wad: a WAD3 with "paint", 16 x 16 texels of COLOUR. */
static bool write_wad(const uint8_t colour[3])
{
    static uint8_t indices[16 * 16], palette[768];
    memset(indices, 7, sizeof indices);
    memcpy(palette + 3 * 7, colour, 3);
    al_wad_texture_desc desc = {"paint", 16, 16, indices, palette};
    size_t size = 0;
    uint8_t *bytes = al_wad_write(3, &desc, 1, NULL, &size);
    if (!bytes) return false;
    char tmp[sizeof wad_path + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", wad_path);
    FILE *f = fopen(tmp, "wb");
    bool ok = f && fwrite(bytes, 1, size, f) == size;
    if (f) ok = fclose(f) == 0 && ok;
    free(bytes);
    return ok && rename(tmp, wad_path) == 0;
}

/* The folder of the fixtures (where paint.wad is). */
static const char *fixture_folder(void)
{
    static char folder[1024];
    snprintf(folder, sizeof folder, "%s", wad_path);
    char *slash = strrchr(folder, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(folder, sizeof folder, ".");
    return folder;
}

/* The light on the floor's top face after the radiosity runs to 1%, summed per channel over
 * its luxels; false on failure. */
static bool floor_light(const al_input *in, double sum[3])
{
    al_world *world = NULL;
    al_diag_list diags = {0};
    al_compile_options co = {.threads = 1, .pvs = AL_PVS_TIGHT};
    bool ok = al_world_compile(in, &co, &world, &diags) == AL_OK;
    al_rad *rad = NULL;
    al_rad_options ro = {.threads = 1};
    al_rad_lightmap map = {0};
    al_rad_face_map fm;
    ok = ok && al_rad_create(world, in, &ro, &rad, &diags) == AL_OK &&
         al_rad_run(rad, 0.01, 120, NULL, NULL) == AL_RAD_STOP_RESIDUAL &&
         al_rad_snapshot(rad, &map) == AL_OK && al_rad_face(rad, 0, 5, &fm);
    sum[0] = sum[1] = sum[2] = 0;
    if (ok)
        for (int y = fm.y; y < fm.y + fm.height; y++)
            for (int x = fm.x; x < fm.x + fm.width; x++)
                for (int k = 0; k < 3; k++) sum[k] += map.texels[y * map.width + x][k];
    al_rad_lightmap_free(&map);
    al_rad_destroy(rad);
    al_world_destroy(world);
    al_diag_list_clear(&diags);
    return ok;
}

/* The colour material NAME reflects in IN, or NULL. */
static const float *reflected(const al_input *in, const char *name)
{
    for (int m = 0; m < in->material_count; m++)
        if (strcmp(in->materials[m].name, name) == 0) return in->materials[m].colour;
    return NULL;
}

/* allium-compile's way: the .map text read, its materials coloured from the WADs its "wad"
 * key names; the floor's light into SUM and paint's colour into PAINT. */
static bool map_way(const char *text, double sum[3], float paint[3])
{
    al_map *map = NULL;
    al_map_input mi;
    al_diag_list diags = {0};
    al_texture_sources sources = {0};
    bool ok = al_map_read_buffer(text, strlen(text), &map, &diags) == AL_OK &&
              al_map_input_build(map, &mi, &diags) == AL_OK;
    if (ok) {
        const char *key = al_entity_value(&mi.input.entities[0], "wad");
        ok = al_texture_sources_open(&sources, key, fixture_folder(), NULL, 0, NULL, &diags) ==
                 AL_OK &&
             sources.count == 1;
        if (ok)
            al_texture_sources_colour_materials(&sources, (al_material_desc *) mi.input.materials,
                                                mi.input.material_count);
        const float *c = reflected(&mi.input, "paint");
        ok = ok && c && floor_light(&mi.input, sum);
        if (c) memcpy(paint, c, sizeof(float[3]));
        al_texture_sources_close(&sources);
        al_map_input_free(&mi);
    }
    al_map_destroy(map);
    al_diag_list_clear(&diags);
    return ok;
}

/* The texture colours as the editor stores them: each material's texture averaged from
 * its texels (al_texture_average), or not found, from the WADs beside the map. */
static al_status store_colours(al_doc *doc, al_doc_change *change)
{
    al_texture_sources sources = {0};
    al_diag_list diags = {0};
    al_status st =
        al_texture_sources_open(&sources, "paint.wad", fixture_folder(), NULL, 0, NULL, &diags);
    al_doc_texture_colour colours[2] = {{.material = "paint"}, {.material = "stone"}};
    for (int i = 0; st == AL_OK && i < 2; i++) {
        const al_texture *t = al_texture_sources_find(&sources, colours[i].material, NULL);
        colours[i].found = t != NULL;
        if (t) al_texture_average(t->rgba, t->width, t->height, colours[i].average);
    }
    if (st == AL_OK) st = al_doc_set_texture_colours(doc, colours, 2, change, &diags);
    al_texture_sources_close(&sources);
    al_diag_list_clear(&diags);
    return st;
}

/* The document's way: the light of DOC's compile into SUM, paint's colour into PAINT. */
static bool doc_way(al_doc *doc, double sum[3], float paint[3])
{
    al_doc_input in;
    al_diag_list diags = {0};
    bool ok = al_doc_build_input(doc, &in, &diags) == AL_OK;
    al_diag_list_clear(&diags);
    if (!ok) return false;
    const float *c = reflected(&in.input, "paint");
    ok = c && floor_light(&in.input, sum);
    if (c) memcpy(paint, c, sizeof(float[3]));
    al_doc_input_free(&in);
    return ok;
}

static bool same_light(const double a[3], const double b[3])
{
    for (int k = 0; k < 3; k++)
        if (!(fabs(a[k] - b[k]) <= 1e-9 * fmax(fabs(a[k]), 1))) return false;
    return true;
}

CHECK_TEST(document_light, "/texture-light/the-document-reflects-its-textures-as-allium-compile")
{
    static char text[16384];
    room_text(text, sizeof text);
    const uint8_t red[3] = {220, 40, 30}, grey[3] = {110, 110, 110};
    snprintf(wad_path, sizeof wad_path, "%s", fixture_path("paint.wad"));

    /* allium-compile with a grey and with a red WAD: the red wall reddens the floor. */
    double grey_map[3], red_map[3];
    float grey_paint[3], red_paint[3];
    REQUIRE(write_wad(grey) && map_way(text, grey_map, grey_paint));
    REQUIRE(write_wad(red) && map_way(text, red_map, red_paint));
    check_note("allium-compile's way: floor red / green %.4f (red wall), %.4f (grey wall)",
               red_map[0] / red_map[1], grey_map[0] / grey_map[1]);
    CHECK(fabsf(red_paint[0] - 220 / 255.0f) < 1e-6f && fabsf(red_paint[1] - 40 / 255.0f) < 1e-6f);
    CHECK(red_map[0] / red_map[1] > 1.05 * grey_map[0] / grey_map[1]);

    /* The document before the colours are stored: paint reflects its name's colour. */
    al_map *map = NULL;
    al_diag_list d = {0};
    REQUIRE(al_map_read_buffer(text, strlen(text), &map, &d) == AL_OK);
    const char *path = fixture_path("texture-light.allium");
    al_doc *doc = NULL;
    REQUIRE(al_doc_create(path, &doc, &d) == AL_OK);
    REQUIRE(al_doc_import_map(doc, map, &d) == AL_OK);
    al_map_destroy(map);
    bool could_undo = al_doc_can_undo(doc);
    double plain[3], stored[3];
    float paint[3];
    REQUIRE(doc_way(doc, plain, paint));
    CHECK(!same_light(plain, red_map));

    /* Stored: the same colour and the same light as allium-compile's; no step. */
    al_doc_change change = {0};
    REQUIRE(store_colours(doc, &change) == AL_OK);
    CHECK(change.materials);
    al_doc_change_clear(&change);
    CHECK(al_doc_can_undo(doc) == could_undo);
    REQUIRE(doc_way(doc, stored, paint));
    CHECK_MSG(memcmp(paint, red_paint, sizeof paint) == 0, "paint %g %g %g against %g %g %g",
              paint[0], paint[1], paint[2], red_paint[0], red_paint[1], red_paint[2]);
    check_note("the document's way: floor light %.6g %.6g %.6g; allium-compile's %.6g %.6g %.6g",
               stored[0], stored[1], stored[2], red_map[0], red_map[1], red_map[2]);
    CHECK(same_light(stored, red_map));

    /* The same colours again change nothing. */
    REQUIRE(store_colours(doc, &change) == AL_OK);
    CHECK(!change.materials);
    al_doc_close(doc);

    /* Reopened, the first compile already has them. */
    REQUIRE(al_doc_open(path, AL_DOC_READ_WRITE, &doc, &d) == AL_OK);
    double reopened[3];
    REQUIRE(doc_way(doc, reopened, paint));
    CHECK(memcmp(paint, red_paint, sizeof paint) == 0 && same_light(reopened, red_map));

    /* The WAD turns grey on disk: one change, and the grey light of allium-compile. */
    REQUIRE(write_wad(grey));
    REQUIRE(store_colours(doc, &change) == AL_OK);
    CHECK(change.materials);
    al_doc_change_clear(&change);
    double regrey[3];
    REQUIRE(doc_way(doc, regrey, paint));
    CHECK(memcmp(paint, grey_paint, sizeof paint) == 0 && same_light(regrey, grey_map));

    /* A colour the designer chose wins over the texture's; undo gives the texture's back. */
    al_doc_material blue = {.name = "paint", .colour = {0, 0, 1}, .reflectance = -1};
    REQUIRE(al_doc_set_material(doc, &blue, &change, &d) == AL_OK);
    al_doc_change_clear(&change);
    double chosen[3];
    REQUIRE(doc_way(doc, chosen, paint));
    CHECK(paint[0] == 0 && paint[1] == 0 && paint[2] == 1);
    REQUIRE(al_doc_undo(doc, &change) == AL_OK);
    al_doc_change_clear(&change);
    REQUIRE(doc_way(doc, chosen, paint));
    CHECK(memcmp(paint, grey_paint, sizeof paint) == 0);

    /* A colour out of range is refused, naming the material; nothing is stored. */
    al_doc_texture_colour bad[2] = {{"stone", true, {0.5f, 0.5f, 0.5f}},
                                    {"paint", true, {1.5f, 0, 0}}};
    al_diag_list_clear(&d);
    CHECK(al_doc_set_texture_colours(doc, bad, 2, &change, &d) == AL_ERR_INVALID_ARGUMENT);
    CHECK(!change.materials);
    CHECK(d.count == 1 && strstr(d.items[0].message, "\"paint\"") &&
          strstr(d.items[0].message, "texture red"));
    REQUIRE(doc_way(doc, chosen, paint));
    CHECK(memcmp(paint, grey_paint, sizeof paint) == 0);
    al_doc_close(doc);
    al_diag_list_clear(&d);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') fixture_set_dir(argv[1]);
    return check_main(argc, argv);
}
