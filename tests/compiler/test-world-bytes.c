/* Compiled worlds as bytes: a loaded world answers every query exactly as the compiled one,
 * saving it again gives the same bytes, and damaged bytes are refused without a crash. */
#include "check.h"
#include "mapgen.h"
#include "scene.h"
#include "al-edits.h"
#include "al-oracle.h"
#include "vis/vis.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static scene s;
static bool loaded;
static void *bytes;
static size_t size;

/* The payload checksum as the format defines it (FNV-1a, 64 bits, over everything after
 * the 32-byte header), so that a test can damage the payload behind the checksum. */
static void reseal(unsigned char *data, size_t n)
{
    uint64_t h = 14695981039346656037u;
    for (size_t i = 32; i < n; i++) h = (h ^ data[i]) * 1099511628211u;
    memcpy(data + 24, &h, 8);
}

static bool same_trace(const al_trace *a, const al_trace *b)
{
    return a->fraction == b->fraction && a->hit == b->hit && a->start_solid == b->start_solid &&
           a->all_solid == b->all_solid && a->model == b->model &&
           memcmp(a->normal, b->normal, sizeof a->normal) == 0 &&
           memcmp(a->end, b->end, sizeof a->end) == 0;
}

/* Random queries on A and B; returns how many answers differ. */
static int differences(const al_world *a, const al_world *b, int count, uint64_t seed)
{
    al_rng rng = {seed};
    int differ = 0;
    for (int i = 0; i < count; i++) {
        int h = i % al_world_hull_count(a);
        double p[3], q[3];
        al_verify_random_point(a, &rng, p);
        al_verify_random_point(a, &rng, q);
        differ += al_world_point_solid(a, h, p) != al_world_point_solid(b, h, p);
        differ += al_world_point_solid_map_tree(a, h, p) != al_world_point_solid_map_tree(b, h, p);
        differ += al_world_point_contents(a, h, p) != al_world_point_contents(b, h, p);
        for (int k = 0; k < 3; k++) q[k] = p[k] + (q[k] - p[k]) * 0.25;
        al_trace ta, tb;
        al_world_trace(a, h, p, q, &ta);
        al_world_trace(b, h, p, q, &tb);
        differ += !same_trace(&ta, &tb);
        const double mins[3] = {-10, -12, -20}, maxs[3] = {10, 12, 30};
        al_world_trace_box(a, mins, maxs, p, q, &ta);
        al_world_trace_box(b, mins, maxs, p, q, &tb);
        differ += !same_trace(&ta, &tb);
    }
    return differ;
}

CHECK_TEST(same_answers, "/world-bytes/a-loaded-world-answers-as-the-compiled-one")
{
    REQUIRE(loaded);
    al_world *w = NULL;
    al_diag_list d = {0};
    REQUIRE(al_world_load(bytes, size, &w, &d) == AL_OK);
    CHECK(differences(s.world, w, 40000, 7) == 0);
    /* Its trees are the same, and so are the open cells it computed again from them. */
    char why[300];
    CHECK_MSG(al_world_tree_differences(s.world, w, why, sizeof why) == 0, "%s", why);
    al_world_stats a, b;
    al_world_get_stats(s.world, &a);
    al_world_get_stats(w, &b);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(al_world_diagnostics(w)->count == al_world_diagnostics(s.world)->count);
    CHECK(al_world_model_count(w) == al_world_model_count(s.world));
    CHECK(al_world_liquid_count(w) == al_world_liquid_count(s.world));
    for (int m = 0; m < al_world_model_count(w); m++)
        CHECK(al_world_model_entity(w, m) == al_world_model_entity(s.world, m));
    /* Saving the loaded world gives the same bytes. */
    void *again;
    size_t again_size;
    REQUIRE(al_world_save(w, &again, &again_size) == AL_OK);
    CHECK(again_size == size && memcmp(again, bytes, size) == 0);
    check_note("%zu bytes for %d brushes", size, a.input_brushes);
    free(again);
    al_world_destroy(w);
    al_diag_list_clear(&d);
}

CHECK_TEST(damaged, "/world-bytes/damaged-bytes-are-refused-with-a-message")
{
    REQUIRE(loaded);
    unsigned char *copy = malloc(size);
    REQUIRE(copy);
    al_world *w = NULL;
    /* Every cut of the bytes. */
    int refused = 0, cuts = 0;
    for (size_t n = 0; n < size; n += 1 + n / 7, cuts++)
        refused += al_world_load(bytes, n, &w, NULL) == AL_ERR_CORRUPT && !w;
    CHECK(refused == cuts);
    /* A changed byte: the checksum. */
    memcpy(copy, bytes, size);
    copy[size / 2] ^= 0x10;
    al_diag_list d = {0};
    CHECK(al_world_load(copy, size, &w, &d) == AL_ERR_CORRUPT);
    CHECK(d.count == 1 && strstr(d.items[0].message, "checksum"));
    al_diag_list_clear(&d);
    free(copy);
}

CHECK_TEST(damaged_behind_checksum,
           "/world-bytes/damage-behind-a-valid-checksum-never-crashes-a-query")
{
    /* Random bytes changed and the checksum recomputed: the structural checks stand
     * alone. Whatever loads must answer queries without a crash (sanitizers watch). A
     * small world (rooms, stairs, a door model) keeps the 600 rounds quick. */
    mapgen *g = mapgen_create(false);
    REQUIRE(g);
    mapgen_begin_entity(g, "worldspawn");
    for (int i = 0; i < 12; i++) {
        double x = (i % 4) * 300.0, y = (i / 4) * 300.0;
        mapgen_box(g, x, y, -16, x + 280, y + 280, 0, "floor");
        mapgen_box(g, x, y, 0, x + 16, y + 280, 128, "wall");
        mapgen_stairs(g, x + 40, y + 40, 0, i % 2, 4, 16, 24, 64, "step");
    }
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_door");
    mapgen_box(g, 600, 0, 0, 608, 64, 96, "door");
    mapgen_end_entity(g);
    size_t text_length;
    const char *text = mapgen_text(g, &text_length);
    scene small;
    bool ok = scene_load_text(&small, text, text_length, NULL);
    mapgen_destroy(g);
    REQUIRE(ok);
    void *small_bytes;
    size_t small_size;
    REQUIRE(al_world_save(small.world, &small_bytes, &small_size) == AL_OK);
    unsigned char *copy = malloc(small_size);
    REQUIRE(copy);
    al_rng rng = {99};
    int accepted = 0, refused = 0;
    for (int round = 0; round < 600; round++) {
        memcpy(copy, small_bytes, small_size);
        int changes = 1 + (int) (al_rng_uniform(&rng) * 4);
        for (int c = 0; c < changes; c++) {
            size_t at = 32 + (size_t) (al_rng_uniform(&rng) * (double) (small_size - 32));
            /* Small integers and sign flips hit counts and indices more often than noise. */
            int kind = (int) (al_rng_uniform(&rng) * 3);
            copy[at] = kind == 0 ? (unsigned char) (al_rng_uniform(&rng) * 256)
                     : kind == 1 ? (unsigned char) (copy[at] + 1)
                                 : 0xff;
        }
        reseal(copy, small_size);
        al_world *w = NULL;
        if (al_world_load(copy, small_size, &w, NULL) == AL_OK) {
            accepted++;
            differences(w, w, 50, (uint64_t) round);
            al_world_destroy(w);
        } else {
            refused++;
        }
    }
    check_note("%zu bytes; %d damaged copies refused, %d loaded (damage in values, not "
               "structure)",
               small_size, refused, accepted);
    CHECK(refused > 0);
    free(copy);
    free(small_bytes);
    scene_free(&small);
}

/* The PVS goes with the stored world: loading it and building visibility uses the stored
 * rows, which must equal the rows computed at the compile; a stored PVS for other leaves
 * or portals, or one coarser than asked for, is not used. */
static void check_stored_pvs(const char *path)
{
    scene t;
    scene_options o = {.pvs = true, .pvs_level = AL_PVS_TIGHT};
    REQUIRE(scene_load_file(&t, path, &o));
    void *data;
    size_t data_size;
    REQUIRE(al_world_save(t.world, &data, &data_size) == AL_OK);
    al_vis_stats computed;
    al_world_vis_stats(t.world, &computed);
    int leaves = al_world_vis_leaf_count(t.world);
    for (int level = AL_PVS_TIGHT; level <= AL_PVS_COARSE; level++) {
        al_world *w = NULL;
        REQUIRE(al_world_load(data, data_size, &w, NULL) == AL_OK);
        REQUIRE(al_world_build_vis(w, &t.input.input, (al_pvs_level) level, 0) == AL_OK);
        al_vis_stats st;
        al_world_vis_stats(w, &st);
        CHECK_MSG(st.pvs_stored && st.level == AL_PVS_TIGHT,
                  "%s: asked for level %d, the stored tight rows were used", path, level);
        int differ = 0;
        REQUIRE(al_world_vis_leaf_count(w) == leaves);
        for (int a = 0; a < leaves; a++)
            for (int b = 0; b < leaves; b++)
                differ += al_world_leaf_sees(w, a, b) != al_world_leaf_sees(t.world, a, b);
        CHECK_MSG(differ == 0, "%s: %d pairs differ from the compile's PVS", path, differ);
        CHECK(st.avg_visible_tight == computed.avg_visible_tight);
        /* Used once: building again computes (here: the coarse pass). */
        REQUIRE(al_world_build_vis(w, &t.input.input, AL_PVS_COARSE, 0) == AL_OK);
        al_world_vis_stats(w, &st);
        CHECK(!st.pvs_stored && st.level == AL_PVS_COARSE);
        al_world_destroy(w);
    }
    al_stored_pvs coded;
    REQUIRE(al_vis_store_pvs(t.world->vis, &coded));
    size_t rows_bytes = (size_t) leaves * (size_t) ((leaves + 7) / 8);
    check_note("%s: %d vis leaves; the PVS takes %zu bytes coded, %zu as plain rows", path,
               leaves, coded.size, rows_bytes);
    al_stored_pvs_free(&coded);
    free(data);
    scene_free(&t);
}

CHECK_TEST(stored_pvs, "/world-bytes/the-stored-pvs-is-used-on-load-and-equals-the-compiled-one")
{
    check_stored_pvs(getenv("ALLIUM_SAMPLE_MAP"));
    const char *generated = getenv("ALLIUM_GENERATED_SMALL_MAP");
    if (generated) check_stored_pvs(generated);
    const char *real = scene_shared_map("lq-e3m4.map");
    if (real) check_stored_pvs(real);
    else check_skip("lq-e3m4.map is not in the shared maps folder");
}

int main(int argc, char **argv)
{
    const char *file = getenv("ALLIUM_GENERATED_MAP");
    if (file) {
        loaded = scene_load_file(&s, file, NULL);
        if (loaded) loaded = al_world_save(s.world, &bytes, &size) == AL_OK;
    } else {
        check_skip_all("ALLIUM_GENERATED_MAP not set");
    }
    int status = check_main(argc, argv);
    free(bytes);
    if (file) scene_free(&s);
    return status;
}
