/* Layers and groups (TrenchBroom's func_group keys): the hierarchy read from a map written
 * here by hand, the round trip through a document, what exports leave out (the .map's
 * entities and the .bsp's entities and models), each edit as one undoable step, the hidden
 * and locked marks, and the warnings for broken keys. */
#include "check.h"
#include "doc-fixture.h"
#include "export/bsp-reader.h"
#include "export/bsp.h"
#include "layers/layer-edits.h"
#include "layers/layer-tree.h"
#include "mapfile/map-write.h"
#include "mapgen.h"
#include "scene.h"
#include "store/document.h"
#include "store/map-doc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The map: the world (a sealed room) in the default layer; layer 1 "Walls" with a brush and
 * group 5 "Outer" (a brush) holding group 6 "Inner" (a brush and a light); layer 2 "Props",
 * locked, with a func_door; layer 3 "Ghosts", hidden, with a brush; layer 4 "Notes",
 * omitted from export, with a brush, an info_null and group 7 "Scribbles" (a brush). The
 * entity indices are those below (E_...). */
enum {
    E_WORLD,
    E_WALLS,
    E_PROPS,
    E_GHOSTS,
    E_NOTES,
    E_OUTER,
    E_INNER,
    E_LIGHT,
    E_DOOR,
    E_NULL,
    E_SCRIBBLES,
    E_COUNT
};

static void layer(mapgen *g, const char *name, int id, int sort)
{
    mapgen_begin_entity(g, "func_group");
    mapgen_key(g, "_tb_type", "_tb_layer");
    mapgen_key(g, "_tb_name", name);
    mapgen_keyf(g, "_tb_id", "%d", id);
    mapgen_keyf(g, "_tb_layer_sort_index", "%d", sort);
}

static void group(mapgen *g, const char *name, int id, const char *key, int parent)
{
    mapgen_begin_entity(g, "func_group");
    mapgen_key(g, "_tb_type", "_tb_group");
    mapgen_key(g, "_tb_name", name);
    mapgen_keyf(g, "_tb_id", "%d", id);
    mapgen_keyf(g, key, "%d", parent);
}

static mapgen *layered_map(void)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_key(g, "wad", "none.wad");
    mapgen_room(g, 0, 0, 0, 1024, 1024, 256, 16, "wall");
    mapgen_end_entity(g);
    layer(g, "Walls", 1, 0);
    mapgen_key(g, "_tb_layer_color", "0.2 0.6 1");
    mapgen_box(g, 64, 64, 0, 128, 128, 64, "brick");
    mapgen_end_entity(g);
    layer(g, "Props", 2, 1);
    mapgen_key(g, "_tb_layer_locked", "1");
    mapgen_end_entity(g);
    layer(g, "Ghosts", 3, 2);
    mapgen_key(g, "_tb_layer_hidden", "1");
    mapgen_box(g, 256, 64, 0, 320, 128, 64, "ghost");
    mapgen_end_entity(g);
    layer(g, "Notes", 4, 3);
    mapgen_key(g, "_tb_layer_omit_from_export", "1");
    mapgen_box(g, 512, 64, 0, 576, 128, 64, "note");
    mapgen_end_entity(g);
    group(g, "Outer", 5, "_tb_layer", 1);
    mapgen_box(g, 64, 256, 0, 128, 320, 64, "outer");
    mapgen_end_entity(g);
    group(g, "Inner", 6, "_tb_group", 5);
    mapgen_box(g, 64, 384, 0, 128, 448, 64, "inner");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "light");
    mapgen_key(g, "origin", "96 416 128");
    mapgen_key(g, "_tb_group", "6");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_door");
    mapgen_key(g, "_tb_layer", "2");
    mapgen_box(g, 700, 500, 0, 716, 600, 128, "door");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "info_null");
    mapgen_key(g, "origin", "540 96 128");
    mapgen_key(g, "_tb_layer", "4");
    mapgen_end_entity(g);
    group(g, "Scribbles", 7, "_tb_layer", 4);
    mapgen_box(g, 640, 64, 0, 704, 128, 64, "note");
    mapgen_end_entity(g);
    return g;
}

static al_map *read_text(const char *text, size_t length)
{
    al_map *map = NULL;
    al_diag_list d = {0};
    if (al_map_read_buffer(text, length, &map, &d) != AL_OK) map = NULL;
    al_diag_list_clear(&d);
    return map;
}

static al_map *layered(void)
{
    mapgen *g = layered_map();
    size_t length;
    const char *text = mapgen_text(g, &length);
    al_map *map = read_text(text, length);
    mapgen_destroy(g);
    return map;
}

/* The oracle: the parent of entity E by searching every entity for the "_tb_id" its
 * "_tb_group" (else "_tb_layer") names, with the right "_tb_type"; -1 for none. */
static int oracle_parent(const al_map *map, int e)
{
    const char *g = al_map_entity_value(&map->entities[e], "_tb_group");
    const char *l = al_map_entity_value(&map->entities[e], "_tb_layer");
    const char *type = al_map_entity_value(&map->entities[e], "_tb_type");
    if (type && strcmp(type, "_tb_layer") == 0) return -1;
    const char *want = g ? "_tb_group" : "_tb_layer", *id = g ? g : l;
    if (!id) return -1;
    for (int o = 1; o < map->entity_count; o++) {
        const char *t = al_map_entity_value(&map->entities[o], "_tb_type");
        const char *i = al_map_entity_value(&map->entities[o], "_tb_id");
        if (t && i && strcmp(t, want) == 0 && strcmp(i, id) == 0) return o;
    }
    return -1;
}

CHECK_TEST(tree, "/layers/tree/reads-the-hierarchy-of-a-hand-written-map")
{
    al_map *map = layered();
    REQUIRE(map && map->entity_count == E_COUNT);
    al_layer_source source = al_layer_source_of_map(map);
    al_layer_node *n = NULL;
    al_diag_list d = {0};
    REQUIRE(al_layer_tree_build(&source, &n, &d) == AL_OK);
    CHECK_MSG(d.count == 0, "%zu diagnostics on a sound map", d.count);
    for (int e = 0; e < E_COUNT; e++) {
        CHECK_MSG(n[e].parent == oracle_parent(map, e), "entity %d: parent %d, oracle %d", e,
                  n[e].parent, oracle_parent(map, e));
        /* The layer and depth by walking the oracle's parents. */
        int at = e, depth = 0;
        while (oracle_parent(map, at) >= 0) {
            at = oracle_parent(map, at);
            depth++;
        }
        const char *t = al_map_entity_value(&map->entities[at], "_tb_type");
        int layer = t && strcmp(t, "_tb_layer") == 0 ? at : -1;
        CHECK_MSG(n[e].layer == layer && n[e].depth == depth, "entity %d: layer %d depth %d", e,
                  n[e].layer, n[e].depth);
    }
    CHECK(n[E_WALLS].kind == AL_LAYER_NODE_LAYER && n[E_WALLS].id == 1);
    CHECK(n[E_OUTER].kind == AL_LAYER_NODE_GROUP && n[E_INNER].kind == AL_LAYER_NODE_GROUP);
    CHECK(n[E_LIGHT].kind == AL_LAYER_NODE_PLAIN && n[E_LIGHT].depth == 3);
    CHECK(n[E_DOOR].locked && !n[E_DOOR].hidden && !n[E_DOOR].omit);
    CHECK(n[E_GHOSTS].hidden && !n[E_GHOSTS].omit);
    CHECK(n[E_NULL].omit && n[E_SCRIBBLES].omit && n[E_NOTES].omit && !n[E_LIGHT].omit);
    free(n);
    al_diag_list_clear(&d);
    al_map_destroy(map);
}

/* Whether A and B hold the same entities: every key and value in order, and as many
 * brushes each. */
static bool same_entities(const al_map *a, const al_map *b, char *why, size_t size)
{
    if (a->entity_count != b->entity_count) {
        snprintf(why, size, "%d entities, then %d", a->entity_count, b->entity_count);
        return false;
    }
    for (int e = 0; e < a->entity_count; e++) {
        const al_map_entity *x = &a->entities[e], *y = &b->entities[e];
        if (x->brush_count != y->brush_count || x->property_count != y->property_count) {
            snprintf(why, size, "entity %d: %d brushes and %d keys, then %d and %d", e,
                     x->brush_count, x->property_count, y->brush_count, y->property_count);
            return false;
        }
        for (int p = 0; p < x->property_count; p++)
            if (strcmp(x->properties[p].key, y->properties[p].key) ||
                strcmp(x->properties[p].value, y->properties[p].value)) {
                snprintf(why, size, "entity %d: \"%s\" \"%s\" became \"%s\" \"%s\"", e,
                         x->properties[p].key, x->properties[p].value, y->properties[p].key,
                         y->properties[p].value);
                return false;
            }
    }
    return true;
}

static al_doc *import(const char *name, const al_map *map)
{
    al_doc *doc = NULL;
    unlink(fixture_path(name));
    if (al_doc_create(fixture_path(name), &doc, NULL) != AL_OK) return NULL;
    if (al_doc_import_map(doc, map, NULL) != AL_OK) {
        al_doc_close(doc);
        return NULL;
    }
    return doc;
}

static al_map *exported(al_doc *doc)
{
    al_map *m = NULL;
    return al_doc_export_map(doc, &m, NULL) == AL_OK ? m : NULL;
}

CHECK_TEST(round_trip, "/layers/map/import-and-export-keep-every-key-and-the-hierarchy")
{
    al_map *map = layered();
    REQUIRE(map);
    al_doc *doc = import("layers-round-trip.allium", map);
    REQUIRE(doc);
    al_map *back = exported(doc);
    REQUIRE(back);
    char why[256] = "";
    CHECK_MSG(same_entities(map, back, why, sizeof why), "document round trip: %s", why);
    /* Through the text too: written, read again, the same. */
    char *text = NULL;
    size_t length = 0;
    REQUIRE(al_map_write(back, false, &text, &length));
    al_map *again = read_text(text, length);
    REQUIRE(again);
    CHECK_MSG(same_entities(map, again, why, sizeof why), "text round trip: %s", why);
    /* The document's hierarchy is the file's. */
    al_layers layers;
    REQUIRE(al_layers_read(doc, &layers, NULL) == AL_OK);
    REQUIRE(layers.count == E_COUNT);
    for (int e = 0; e < E_COUNT; e++)
        CHECK_MSG(layers.nodes[e].parent == oracle_parent(map, e), "entity %d", e);
    int *list = NULL, count = 0;
    REQUIRE(al_layers_list(&layers, &list, &count) == AL_OK);
    CHECK(count == 5 && list[0] == 0 && list[1] == E_WALLS && list[4] == E_NOTES);
    free(list);
    al_layers_free(&layers);
    free(text);
    al_map_destroy(again);
    al_map_destroy(back);
    al_map_destroy(map);
    al_doc_close(doc);
}

static bool has_entity(const al_map *map, const char *classname)
{
    for (int e = 0; e < map->entity_count; e++) {
        const char *c = al_map_entity_value(&map->entities[e], "classname");
        if (c && strcmp(c, classname) == 0) return true;
    }
    return false;
}

static int brush_total(const al_map *map)
{
    int n = 0;
    for (int e = 0; e < map->entity_count; e++) n += map->entities[e].brush_count;
    return n;
}

CHECK_TEST(omit_map, "/layers/export/map-export-leaves-out-the-omitted-layer-only")
{
    al_map *map = layered();
    REQUIRE(map);
    al_doc *doc = import("layers-omit.allium", map);
    REQUIRE(doc);
    al_map *out = exported(doc);
    REQUIRE(out);
    int before = out->entity_count, brushes = brush_total(out), omitted = -1;
    REQUIRE(al_map_omit_layers(out, &omitted, NULL) == AL_OK);
    /* The Notes layer, its brush, its info_null, its group and that group's brush. */
    CHECK_MSG(omitted == 3 && out->entity_count == before - 3, "%d omitted", omitted);
    CHECK(brush_total(out) == brushes - 2);
    CHECK(!has_entity(out, "info_null") && has_entity(out, "light"));
    for (int e = 0; e < out->entity_count; e++) {
        const char *name = al_map_entity_value(&out->entities[e], "_tb_name");
        CHECK(!name || (strcmp(name, "Notes") && strcmp(name, "Scribbles")));
    }
    /* Hidden and locked layers are exported: hidden is how the editor shows them. */
    int ghosts = 0;
    for (int e = 0; e < out->entity_count; e++) {
        const char *name = al_map_entity_value(&out->entities[e], "_tb_name");
        ghosts += name && strcmp(name, "Ghosts") == 0 && out->entities[e].brush_count == 1;
    }
    CHECK(ghosts == 1 && has_entity(out, "func_door"));
    al_map_destroy(out);
    al_map_destroy(map);
    al_doc_close(doc);
}

/* How many entities the entities lump of a .bsp holds, and whether one is of CLASSNAME. */
static int lump_entities(const rb_bsp *b, const char *classname, bool *found)
{
    int n = 0;
    char want[128];
    snprintf(want, sizeof want, "\"classname\" \"%s\"", classname);
    *found = strstr(b->entities, want) != NULL;
    for (const char *p = b->entities; (p = strchr(p, '{')); p++) n++;
    return n;
}

/* The .bsp of MAP (omitting or not), read back. */
static bool bsp_of(const al_map *map, bool omit, rb_bsp *out, int *brushes)
{
    char *text = NULL;
    size_t length = 0;
    if (!al_map_write(map, false, &text, &length)) return false;
    al_map *copy = read_text(text, length);
    free(text);
    if (!copy || (omit && al_map_omit_layers(copy, NULL, NULL) != AL_OK)) {
        al_map_destroy(copy);
        return false;
    }
    bool ok = al_map_write(copy, false, &text, &length);
    al_map_destroy(copy);
    scene s = {0};
    scene_options o = {.pvs = true, .pvs_level = AL_PVS_TIGHT};
    ok = ok && scene_load_text(&s, text, length, &o);
    free(text);
    al_bsp_files files = {0};
    al_bsp_source src = {s.map, &s.input.input, s.world, NULL, NULL, NULL};
    ok = ok && al_bsp_build(&src, AL_BSP29, &files, NULL, NULL) == AL_OK;
    char why[200];
    ok = ok && rb_read(files.bsp, files.bsp_size, out, why, sizeof why);
    *brushes = ok ? s.input.input.brush_count : 0;
    al_bsp_files_free(&files);
    scene_free(&s);
    return ok;
}

CHECK_TEST(omit_bsp, "/layers/export/bsp-export-leaves-out-the-omitted-layer")
{
    al_map *map = layered();
    REQUIRE(map);
    rb_bsp whole = {0}, omitted = {0};
    int whole_brushes = 0, omitted_brushes = 0;
    REQUIRE(bsp_of(map, false, &whole, &whole_brushes));
    REQUIRE(bsp_of(map, true, &omitted, &omitted_brushes));
    bool null_whole, null_omitted, light;
    int n_whole = lump_entities(&whole, "info_null", &null_whole);
    int n_omitted = lump_entities(&omitted, "info_null", &null_omitted);
    lump_entities(&omitted, "light", &light);
    /* The func_groups merge into the world in both; the info_null is the only entity
     * of the Notes layer in the lump. */
    CHECK(null_whole && !null_omitted && light);
    CHECK_MSG(n_omitted == n_whole - 1, "%d entities in the lump, %d without omitting", n_omitted,
              n_whole);
    CHECK_MSG(omitted_brushes == whole_brushes - 2, "%d brushes compiled, %d without omitting",
              omitted_brushes, whole_brushes);
    CHECK(omitted.model_count == whole.model_count); /* the world and the door */
    check_note("entities %d -> %d, brushes %d -> %d", n_whole, n_omitted, whole_brushes,
               omitted_brushes);
    rb_free(&whole);
    rb_free(&omitted);
    al_map_destroy(map);
}

/* The document as text (every entity, key and brush) and its marks: what undo restores. */
static char *snapshot(al_doc *doc)
{
    al_map *m = exported(doc);
    char *text = NULL;
    size_t length = 0;
    if (!m || !al_map_write(m, false, &text, &length)) {
        al_map_destroy(m);
        return NULL;
    }
    al_map_destroy(m);
    int64_t *ids = NULL;
    unsigned *states = NULL;
    int count = 0;
    al_doc_entity_row *rows = NULL;
    int rc = 0;
    if (al_doc_brush_states(doc, &ids, &states, &count) != AL_OK ||
        al_doc_list_entities(doc, &rows, &rc) != AL_OK) {
        free(text);
        return NULL;
    }
    size_t cap = length + 64 * (size_t) (count + rc) + 1;
    char *out = malloc(cap);
    size_t n = (size_t) snprintf(out, cap, "%s", text);
    for (int i = 0; i < count; i++)
        n += (size_t) snprintf(out + n, cap - n, "brush %lld: %u\n", (long long) ids[i], states[i]);
    for (int i = 0; i < rc; i++)
        n += (size_t) snprintf(out + n, cap - n, "entity %lld: %u\n", (long long) rows[i].id,
                               rows[i].state);
    free(text);
    free(ids);
    free(states);
    al_doc_entity_rows_free(rows, rc);
    return out;
}

/* The entity row of the map's entity E (its index in the document's order). */
static int64_t row_of(al_doc *doc, int e)
{
    al_doc_entity_row *rows = NULL;
    int count = 0;
    int64_t id = -1;
    if (al_doc_list_entities(doc, &rows, &count) == AL_OK && e < count) id = rows[e].id;
    al_doc_entity_rows_free(rows, count);
    return id;
}

/* The first brush of entity row ENTITY. */
static int64_t brush_of(al_doc *doc, int64_t entity)
{
    int64_t *ids = NULL, id = -1;
    int count = 0;
    if (al_doc_list_brushes(doc, entity, &ids, &count) == AL_OK && count > 0) id = ids[0];
    free(ids);
    return id;
}

/* Checks that the edit just made changed the document from BEFORE in one step: undo gives
 * BEFORE back, redo the edited state. Returns the edited snapshot. */
static void check_one_step(al_doc *doc, const char *name, char *before)
{
    char *after = snapshot(doc);
    REQUIRE(after && before);
    CHECK_MSG(strcmp(before, after) != 0, "%s changed nothing", name);
    CHECK_MSG(al_doc_undo(doc, NULL) == AL_OK, "%s: undo", name);
    char *undone = snapshot(doc);
    CHECK_MSG(undone && strcmp(undone, before) == 0, "%s: one undo does not restore it", name);
    CHECK_MSG(al_doc_redo(doc, NULL) == AL_OK, "%s: redo", name);
    char *redone = snapshot(doc);
    CHECK_MSG(redone && strcmp(redone, after) == 0, "%s: redo differs", name);
    free(after);
    free(undone);
    free(redone);
    free(before);
}

CHECK_TEST(undo, "/layers/edits/each-change-is-one-undoable-step")
{
    al_map *map = layered();
    REQUIRE(map);
    al_doc *doc = import("layers-undo.allium", map);
    REQUIRE(doc);
    al_diag_list d = {0};
    int64_t walls = row_of(doc, E_WALLS), ghosts = row_of(doc, E_GHOSTS);
    int64_t outer = row_of(doc, E_OUTER), light = row_of(doc, E_LIGHT);
    int64_t world_brush = brush_of(doc, 0), walls_brush = brush_of(doc, walls);
    int64_t layer = 0, grouped = 0;

    char *before = snapshot(doc);
    CHECK(al_layers_add_layer(doc, "Lights", &layer, NULL, &d) == AL_OK && layer > 0);
    check_one_step(doc, "new layer", before);

    before = snapshot(doc);
    CHECK(al_layers_rename(doc, layer, "Lamps", NULL, &d) == AL_OK);
    check_one_step(doc, "rename", before);

    for (int f = AL_LAYER_HIDDEN; f <= AL_LAYER_OMIT; f++) {
        before = snapshot(doc);
        CHECK(al_layers_set_flag(doc, walls, (al_layer_flag_kind) f, true, NULL, &d) == AL_OK);
        check_one_step(doc, "set a layer flag", before);
        before = snapshot(doc);
        CHECK(al_layers_set_flag(doc, walls, (al_layer_flag_kind) f, false, NULL, &d) == AL_OK);
        check_one_step(doc, "clear a layer flag", before);
    }

    before = snapshot(doc);
    CHECK(al_layers_move_to_layer(doc, &world_brush, 1, &light, 1, layer, NULL, &d) == AL_OK);
    check_one_step(doc, "move to layer", before);
    /* The light moved with its outermost group: group 5 now names the new layer. */
    al_layers l;
    REQUIRE(al_layers_read(doc, &l, NULL) == AL_OK);
    int o = al_layers_find(&l, outer);
    REQUIRE(o > 0);
    CHECK(l.rows[l.nodes[o].parent].id == layer);
    CHECK(al_doc_brush_owner(doc, world_brush) == layer);
    al_layers_free(&l);

    before = snapshot(doc);
    int64_t two[2] = {world_brush, walls_brush};
    CHECK(al_layers_group(doc, two, 2, NULL, 0, "Pair", &grouped, NULL, &d) == AL_OK);
    check_one_step(doc, "group", before);
    CHECK(al_doc_brush_owner(doc, walls_brush) == grouped);

    before = snapshot(doc);
    CHECK(al_layers_ungroup(doc, grouped, NULL, &d) == AL_OK);
    check_one_step(doc, "ungroup", before);
    CHECK(!al_doc_entity_exists(doc, grouped));
    CHECK(al_doc_brush_owner(doc, walls_brush) == layer);

    before = snapshot(doc);
    CHECK(al_doc_set_state(doc, &walls_brush, 1, NULL, 0, AL_DOC_STATE_HIDDEN, AL_DOC_STATE_HIDDEN,
                           "Hide", NULL, &d) == AL_OK);
    check_one_step(doc, "hide a brush", before);

    before = snapshot(doc);
    CHECK(al_doc_set_state(doc, NULL, 0, &outer, 1, AL_DOC_STATE_LOCKED, AL_DOC_STATE_LOCKED,
                           "Lock", NULL, &d) == AL_OK);
    check_one_step(doc, "lock a group", before);

    /* A point entity takes the marks as any entity does. */
    before = snapshot(doc);
    CHECK(al_doc_set_state(doc, NULL, 0, &light, 1, AL_DOC_STATE_HIDDEN | AL_DOC_STATE_LOCKED,
                           AL_DOC_STATE_HIDDEN | AL_DOC_STATE_LOCKED, "Hide", NULL, &d) == AL_OK);
    check_one_step(doc, "hide and lock a point entity", before);
    REQUIRE(al_layers_read(doc, &l, NULL) == AL_OK);
    int li = al_layers_find(&l, light);
    CHECK(li > 0 && l.rows[li].state == (AL_DOC_STATE_HIDDEN | AL_DOC_STATE_LOCKED));
    al_layers_free(&l);

    before = snapshot(doc);
    CHECK(al_layers_delete_layer(doc, ghosts, NULL, &d) == AL_OK);
    check_one_step(doc, "delete layer", before);
    CHECK(!al_doc_entity_exists(doc, ghosts));

    /* Refusals change nothing and say why. */
    before = snapshot(doc);
    al_diag_list_clear(&d);
    CHECK(al_layers_set_flag(doc, 0, AL_LAYER_OMIT, true, NULL, &d) == AL_ERR_INVALID_ARGUMENT);
    CHECK(al_layers_ungroup(doc, walls, NULL, &d) == AL_ERR_INVALID_ARGUMENT);
    CHECK(al_layers_add_layer(doc, "", NULL, NULL, &d) == AL_ERR_INVALID_ARGUMENT);
    CHECK(al_doc_set_state(doc, (int64_t[]){999999}, 1, NULL, 0, AL_DOC_STATE_HIDDEN, 1, "Hide",
                           NULL, &d) == AL_ERR_NOT_FOUND);
    CHECK(d.count == 4);
    char *after = snapshot(doc);
    CHECK(after && strcmp(before, after) == 0);
    free(before);
    free(after);
    al_diag_list_clear(&d);
    al_map_destroy(map);
    al_doc_close(doc);
}

CHECK_TEST(nested, "/layers/edits/nested-groups-select-from-the-outside-in")
{
    al_map *map = layered();
    REQUIRE(map);
    al_doc *doc = import("layers-nested.allium", map);
    REQUIRE(doc);
    int64_t outer = row_of(doc, E_OUTER), inner = row_of(doc, E_INNER);
    int64_t light = row_of(doc, E_LIGHT), door = row_of(doc, E_DOOR);
    al_layers l;
    REQUIRE(al_layers_read(doc, &l, NULL) == AL_OK);
    /* A click on the inner group's brush or light picks the outer group; inside the outer
     * one, the inner; inside the inner, the light itself. */
    CHECK(al_layers_outer_group(&l, inner, true, 0) == outer);
    CHECK(al_layers_outer_group(&l, light, false, 0) == outer);
    CHECK(al_layers_outer_group(&l, inner, true, outer) == inner);
    CHECK(al_layers_outer_group(&l, light, false, outer) == inner);
    CHECK(al_layers_outer_group(&l, light, false, inner) == 0);
    CHECK(al_layers_outer_group(&l, outer, true, 0) == outer);
    CHECK(al_layers_outer_group(&l, door, false, 0) == 0);
    CHECK(al_layers_outer_group(&l, 0, true, 0) == 0);
    al_layers_free(&l);
    /* Grouping the outer group with a world brush nests it one deeper. */
    int64_t world_brush = brush_of(doc, 0), top = 0;
    CHECK(al_layers_group(doc, &world_brush, 1, &outer, 1, "Top", &top, NULL, NULL) == AL_OK);
    REQUIRE(al_layers_read(doc, &l, NULL) == AL_OK);
    CHECK(al_layers_outer_group(&l, light, false, 0) == top);
    int li = al_layers_find(&l, light);
    CHECK(li > 0 && l.nodes[li].depth == 3);
    al_layers_free(&l);
    al_map_destroy(map);
    al_doc_close(doc);
}

/* Whether DIAGS holds a warning on LINE whose message holds TEXT. */
static bool warned(const al_diag_list *diags, int line, const char *text)
{
    for (size_t i = 0; i < diags->count; i++)
        if (diags->items[i].severity == AL_SEVERITY_WARNING && diags->items[i].line == line &&
            strstr(diags->items[i].message, text))
            return true;
    return false;
}

CHECK_TEST(broken, "/layers/import/broken-keys-are-warnings-naming-the-line")
{
    static const char text[] =
        "{\n\"classname\" \"worldspawn\"\n}\n"                                            /* 1 */
        "{\n\"classname\" \"func_group\"\n\"_tb_type\" \"_tb_group\"\n\"_tb_id\" \"1\"\n" /* 4 */
        "\"_tb_group\" \"2\"\n}\n"
        "{\n\"classname\" \"func_group\"\n\"_tb_type\" \"_tb_group\"\n\"_tb_id\" \"2\"\n" /* 10 */
        "\"_tb_group\" \"1\"\n}\n"
        "{\n\"classname\" \"light\"\n\"_tb_group\" \"42\"\n}\n" /* 16 */
        "{\n\"classname\" \"func_group\"\n\"_tb_type\" \"_tb_layer\"\n\"_tb_id\" \"x7\"\n}\n" /* 20
                                                                                               */
        "{\n\"classname\" \"func_group\"\n\"_tb_type\" \"_tb_group\"\n\"_tb_id\" \"2\"\n}\n"  /* 25
                                                                                               */
        "{\n\"classname\" \"info_null\"\n\"_tb_layer\" \"-1\"\n}\n"; /* 30 */
    al_map *map = read_text(text, sizeof text - 1);
    REQUIRE(map && map->entity_count == 7);
    al_diag_list d = {0};
    al_doc *doc = NULL;
    unlink(fixture_path("layers-broken.allium"));
    REQUIRE(al_doc_create(fixture_path("layers-broken.allium"), &doc, NULL) == AL_OK);
    REQUIRE(al_doc_import_map(doc, map, &d) == AL_OK);
    CHECK(warned(&d, 4, "holds itself") || warned(&d, 10, "holds itself"));
    CHECK(warned(&d, 16, "names no group"));
    CHECK(warned(&d, 20, "whole-number"));
    CHECK(warned(&d, 25, "comes earlier"));
    CHECK(warned(&d, 30, "names no layer"));
    /* Kept as written: the document holds every key, and its hierarchy has no cycle. */
    al_map *back = exported(doc);
    char why[256] = "";
    CHECK_MSG(back && same_entities(map, back, why, sizeof why), "%s", why);
    al_layers l;
    REQUIRE(al_layers_read(doc, &l, NULL) == AL_OK);
    for (int e = 0; e < l.count; e++) {
        int at = e, steps = 0;
        while (at >= 0 && steps <= l.count) {
            at = l.nodes[at].parent;
            steps++;
        }
        CHECK_MSG(at < 0, "entity %d is in a cycle", e);
    }
    CHECK(l.nodes[3].parent == -1 && l.nodes[4].kind == AL_LAYER_NODE_PLAIN &&
          l.nodes[5].kind == AL_LAYER_NODE_PLAIN);
    al_layers_free(&l);
    al_map_destroy(back);
    al_diag_list_clear(&d);
    al_map_destroy(map);
    al_doc_close(doc);
}

/* Whether N (an index of L) shows colour R G B, within the 4 digits the key keeps. */
static bool colored(const al_layers *l, int n, float r, float g, float b)
{
    const al_layer_node *node = &l->nodes[n];
    return node->has_color && fabsf(node->color[0] - r) < 1e-4f &&
           fabsf(node->color[1] - g) < 1e-4f && fabsf(node->color[2] - b) < 1e-4f;
}

CHECK_TEST(color, "/layers/color/set-undone-and-kept-through-the-map-text")
{
    /* The value as TrenchBroom writes it, three or four numbers; anything else is none. */
    float rgb[3] = {-1, -1, -1};
    CHECK(al_layer_color_parse("0.25 0.75 1 1", rgb) && rgb[0] == 0.25f && rgb[1] == 0.75f &&
          rgb[2] == 1.0f);
    CHECK(al_layer_color_parse(" 0.0 1.0 0.0", rgb) && rgb[0] == 0 && rgb[1] == 1 && rgb[2] == 0);
    static const char *const bad[] = {"",         "1 1",       "0.5 0.5 x", "0.5 0.5 1.5",
                                      "-0.1 0 0", "0 0 0 1 1", "nan 0 0",   "0 0 0,"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_MSG(!al_layer_color_parse(bad[i], rgb), "\"%s\" read as a colour", bad[i]);
    char text[AL_LAYER_COLOR_SIZE];
    al_layer_color_format((const float[3]){0.125f, 2.0f, -1.0f}, text);
    CHECK_MSG(strcmp(text, "0.125 1 0 1") == 0, "written as \"%s\"", text);

    al_map *map = layered();
    REQUIRE(map);
    al_doc *doc = import("layers-color.allium", map);
    REQUIRE(doc);
    al_diag_list d = {0};
    int64_t walls = row_of(doc, E_WALLS), props = row_of(doc, E_PROPS);
    al_layers l;
    /* The file's colour reaches the layer's members, through their groups. */
    REQUIRE(al_layers_read(doc, &l, NULL) == AL_OK);
    CHECK(colored(&l, E_WALLS, 0.2f, 0.6f, 1) && colored(&l, E_OUTER, 0.2f, 0.6f, 1) &&
          colored(&l, E_LIGHT, 0.2f, 0.6f, 1));
    CHECK(!l.nodes[E_PROPS].has_color && !l.nodes[E_DOOR].has_color && !l.nodes[0].has_color);
    al_layers_free(&l);

    /* Set on a layer and on the default one, each one step; a group is refused. */
    char *before = snapshot(doc);
    CHECK(al_layers_set_color(doc, props, (const float[3]){0.25f, 0.75f, 1}, NULL, &d) == AL_OK);
    check_one_step(doc, "colour a layer", before);
    before = snapshot(doc);
    CHECK(al_layers_set_color(doc, 0, (const float[3]){1, 0.5f, 0}, NULL, &d) == AL_OK);
    check_one_step(doc, "colour the default layer", before);
    before = snapshot(doc);
    CHECK(al_layers_set_color(doc, walls, NULL, NULL, &d) == AL_OK);
    check_one_step(doc, "clear a colour", before);
    CHECK(al_layers_set_color(doc, row_of(doc, E_OUTER), (const float[3]){1, 1, 1}, NULL, &d) ==
          AL_ERR_INVALID_ARGUMENT);

    /* Through the text and back into a new document: the same colours. */
    al_map *back = exported(doc);
    REQUIRE(back);
    char *written = NULL;
    size_t length = 0;
    REQUIRE(al_map_write(back, false, &written, &length));
    CHECK(strstr(written, "\"_tb_layer_color\" \"0.25 0.75 1 1\"") != NULL);
    al_map *again = read_text(written, length);
    REQUIRE(again);
    al_doc *copy = import("layers-color-copy.allium", again);
    REQUIRE(copy);
    REQUIRE(al_layers_read(copy, &l, NULL) == AL_OK);
    CHECK(colored(&l, E_PROPS, 0.25f, 0.75f, 1) && colored(&l, E_DOOR, 0.25f, 0.75f, 1));
    CHECK(colored(&l, 0, 1, 0.5f, 0) && !l.nodes[E_NULL].has_color);
    CHECK(!l.nodes[E_WALLS].has_color && !l.nodes[E_OUTER].has_color);
    al_layers_free(&l);
    al_doc_close(copy);
    al_map_destroy(again);
    free(written);
    al_map_destroy(back);

    /* A broken value is a warning naming its line; the layer has none. */
    static const char broken[] = "{\n\"classname\" \"worldspawn\"\n}\n"
                                 "{\n\"classname\" \"func_group\"\n\"_tb_type\" \"_tb_layer\"\n"
                                 "\"_tb_id\" \"1\"\n\"_tb_layer_color\" \"red\"\n}\n";
    al_map *bm = read_text(broken, sizeof broken - 1);
    REQUIRE(bm);
    al_diag_list_clear(&d);
    al_layer_source src = al_layer_source_of_map(bm);
    al_layer_node *nodes = NULL;
    REQUIRE(al_layer_tree_build(&src, &nodes, &d) == AL_OK);
    CHECK(warned(&d, 4, "_tb_layer_color") && !nodes[1].has_color);
    free(nodes);
    al_map_destroy(bm);
    al_diag_list_clear(&d);
    al_map_destroy(map);
    al_doc_close(doc);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] != '-') fixture_set_dir(argv[1]);
    return check_main(argc, argv);
}
