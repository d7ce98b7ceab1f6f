/* The runtime library (compiler/runtime) against the compiler it was exported from: the
 * oracle is the compiler's own world, whose traces, contents, vis leaves, PVS and light the
 * loaded file must answer alike at random queries, on the generated maps and on real maps
 * (skipped, visibly, without shared_maps). Then the file itself: written twice it is the
 * same bytes, laid out little-endian as FORMAT.md says, and damage to any byte is refused
 * with a message naming the section. */
#include "allium-runtime.h"
#include "al-rad.h"
#include "al-runtime.h"
#include "al-vis.h"
#include "check.h"
#include "scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const scene_options with_pvs = {.pvs = true};

/* A small deterministic generator (xorshift64*), so failures replay. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double) ((rng_state * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

static void random_point(const double lo[3], const double hi[3], double p[3])
{
    for (int k = 0; k < 3; k++) p[k] = lo[k] + (hi[k] - lo[k]) * uniform();
}

/* A point in empty space for HULL inside the map (in a vis leaf, where the map has them)
 * when one is found in a few dozen tries (most queries a game makes start there), else any
 * point. */
static void random_start(const al_world *w, int hull, const double lo[3], const double hi[3],
                         double p[3])
{
    bool vis = al_world_vis_leaf_count(w) > 0;
    for (int tries = 0; tries < 60; tries++) {
        random_point(lo, hi, p);
        if (!al_world_point_solid(w, hull, p) && (!vis || al_world_vis_leaf_at(w, p) >= 0)) return;
    }
}

static void random_end(const double start[3], double end[3])
{
    static const double lengths[] = {4, 32, 128, 700};
    double len = lengths[(int) (uniform() * 4) & 3], d[3], n = 0;
    do {
        for (int k = 0; k < 3; k++) d[k] = uniform() * 2 - 1;
        n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    } while (n < 0.1 || n > 1);
    for (int k = 0; k < 3; k++) end[k] = start[k] + d[k] / n * len;
}

static bool same_trace(const al_trace *a, const alrt_hit *b)
{
    if (a->hit != (b->hit != 0) || a->start_solid != (b->start_solid != 0) ||
        a->all_solid != (b->all_solid != 0) || fabs(a->fraction - b->fraction) > 1e-9 ||
        a->model != b->model || a->entity != b->entity)
        return false;
    for (int k = 0; k < 3; k++)
        if (fabs(a->normal[k] - b->normal[k]) > 1e-9 || fabs(a->end[k] - b->end[k]) > 1e-6)
            return false;
    return true;
}

static alrt_world *export_world(const scene *s, const al_rad *rad, const al_rad_lightmap *map)
{
    al_runtime_source src = {s->world, &s->input.input, rad, map};
    void *data = NULL;
    size_t size = 0;
    al_status st = al_runtime_write(&src, &data, &size);
    CHECK_MSG(st == AL_OK, "write: %s", al_status_message(st));
    if (st != AL_OK) return NULL;
    alrt_world *rt = NULL;
    char why[256];
    alrt_status rs = alrt_load(data, size, &rt, why, sizeof why);
    CHECK_MSG(rs == ALRT_OK, "load: %s", why);
    free(data);
    return rt;
}

/* Random queries of every kind, each answered by the compiler's world and by the runtime
 * world exported from it; every answer must agree. */
static void check_oracle(const scene *s, const alrt_world *rt, int queries, const char *name,
                         al_rad *rad, const al_rad_lightmap *map)
{
    const al_world *w = s->world;
    double lo[3], hi[3];
    al_world_bounds(w, lo, hi);
    for (int k = 0; k < 3; k++) lo[k] -= 32, hi[k] += 32;
    REQUIRE(alrt_hull_count(rt) == al_world_hull_count(w));
    REQUIRE(alrt_model_count(rt) == al_world_model_count(w));
    int bad_trace = 0, bad_box = 0, bad_contents = 0, bad_leaf = 0, bad_pvs = 0, hits = 0;
    for (int q = 0; q < queries; q++) {
        int hull = q % al_world_hull_count(w);
        double a[3], b[3];
        random_start(w, hull, lo, hi, a);
        random_end(a, b);
        al_trace t;
        alrt_hit r;
        al_world_trace(w, hull, a, b, &t);
        alrt_trace(rt, hull, a, b, &r);
        hits += t.hit;
        if (!same_trace(&t, &r) && bad_trace++ < 3)
            check_note("%s: hull %d trace (%.17g %.17g %.17g)->(%.17g %.17g %.17g): compiler "
                       "hit %d f %.9f n (%g %g %g), runtime hit %d f %.9f n (%g %g %g)",
                       name, hull, a[0], a[1], a[2], b[0], b[1], b[2], t.hit, t.fraction,
                       t.normal[0], t.normal[1], t.normal[2], r.hit, r.fraction, r.normal[0],
                       r.normal[1], r.normal[2]);
        /* Any box: a compiled hull's box now and then, else a random one. */
        double mins[3], maxs[3];
        const al_hull_desc *hd = al_world_hull(w, hull);
        for (int k = 0; k < 3; k++) {
            double e = 4 + 28 * uniform();
            mins[k] = q % 3 == 0 ? hd->mins[k] : -e;
            maxs[k] = q % 3 == 0 ? hd->maxs[k] : e * (0.5 + uniform());
        }
        al_world_trace_box(w, mins, maxs, a, b, &t);
        alrt_trace_box(rt, mins, maxs, a, b, &r);
        if (!same_trace(&t, &r) && bad_box++ < 3)
            check_note("%s: box trace (%.17g %.17g %.17g)->(%.17g %.17g %.17g): compiler hit %d "
                       "f %.9f, runtime hit %d f %.9f",
                       name, a[0], a[1], a[2], b[0], b[1], b[2], t.hit, t.fraction, r.hit,
                       r.fraction);
        double p[3];
        random_point(lo, hi, p);
        if ((int) al_world_point_contents(w, hull, p) != (int) alrt_point_contents(rt, hull, p))
            bad_contents++;
        int leaf = al_world_vis_leaf_at(w, p);
        if (leaf != alrt_leaf_at(rt, p)) bad_leaf++;
        int n = al_world_vis_leaf_count(w);
        if (n > 0) {
            int x = (int) (uniform() * n), y = (int) (uniform() * n);
            if (al_world_leaf_sees(w, x, y) != (alrt_leaf_sees(rt, x, y) != 0)) bad_pvs++;
        }
    }
    CHECK_MSG(bad_trace == 0, "%s: %d of %d hull traces differ", name, bad_trace, queries);
    CHECK_MSG(bad_box == 0, "%s: %d of %d box traces differ", name, bad_box, queries);
    CHECK_MSG(bad_contents == 0, "%s: %d of %d point contents differ", name, bad_contents, queries);
    CHECK_MSG(bad_leaf == 0, "%s: %d of %d vis leaves differ", name, bad_leaf, queries);
    CHECK_MSG(bad_pvs == 0, "%s: %d of %d PVS bits differ", name, bad_pvs, queries);
    CHECK_MSG(hits > queries / 20, "%s: only %d of %d traces hit anything", name, hits, queries);
    CHECK(alrt_leaf_count(rt) == al_world_vis_leaf_count(w));
    /* The entities, pair by pair, as the input has them. */
    const al_input *in = &s->input.input;
    REQUIRE(alrt_entity_count(rt) == in->entity_count);
    int bad_pairs = 0;
    for (int e = 0; e < in->entity_count; e++) {
        const al_entity_desc *ed = &in->entities[e];
        if (alrt_entity_pair_count(rt, e) != ed->property_count) bad_pairs++;
        for (int i = 0; i < ed->property_count; i++) {
            const char *value = NULL;
            const char *key = alrt_entity_pair(rt, e, i, &value);
            if (!key || strcmp(key, ed->properties[i].key) != 0 ||
                strcmp(value, ed->properties[i].value) != 0)
                bad_pairs++;
        }
    }
    CHECK_MSG(bad_pairs == 0, "%s: %d entity pairs differ", name, bad_pairs);
    /* Light at the solver's own luxels: what its lightmap shows there. */
    if (rad) {
        al_rad_stats st;
        al_rad_get_stats(rad, &st);
        int bad_light = 0, lit = 0;
        for (int i = 0; i < st.patches; i += 1 + st.patches / 4000) {
            al_rad_luxel lx;
            if (!al_rad_luxel_get(rad, i, &lx)) continue;
            float want[3], got[3];
            bool a = al_rad_shown_at(rad, map, lx.point, lx.normal, want);
            bool b = alrt_light_at(rt, lx.point, lx.normal, got) != 0;
            lit += b;
            if (a != b || memcmp(want, got, sizeof want) != 0) bad_light++;
        }
        CHECK_MSG(bad_light == 0, "%s: %d luxels' light differs", name, bad_light);
        CHECK_MSG(lit > 0, "%s: no luxel lit", name);
    }
    check_note("%s: %d queries, %d hits, %d vis leaves", name, queries, hits, alrt_leaf_count(rt));
}

static void check_map(const char *path, const char *name, int queries, int64_t shots)
{
    scene s = {0};
    REQUIRE_MSG(scene_load_file(&s, path, &with_pvs), "%s", path);
    al_rad *rad = NULL;
    al_rad_lightmap map = {0};
    if (shots > 0) {
        REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK);
        al_rad_step(rad, shots);
        REQUIRE(al_rad_snapshot(rad, &map) == AL_OK);
    }
    alrt_world *rt = export_world(&s, rad, rad ? &map : NULL);
    if (rt) check_oracle(&s, rt, queries, name, rad, &map);
    alrt_destroy(rt);
    al_rad_lightmap_free(&map);
    al_rad_destroy(rad);
    scene_free(&s);
}

CHECK_TEST(generated, "/runtime/oracle/generated-maps-answer-as-the-compiler")
{
    const char *maps[] = {"ALLIUM_GENERATED_SMALL_MAP", "ALLIUM_GENERATED_OFFGRID_MAP"};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        const char *path = getenv(maps[i]);
        if (!path) {
            check_skip(maps[i]);
            continue;
        }
        check_map(path, maps[i], 20000, 300);
    }
}

CHECK_TEST(real, "/runtime/oracle/real-maps-answer-as-the-compiler")
{
    const char *names[] = {"e1m1.map", "start.map", "dm2.map"};
    int found = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *path = scene_shared_map(names[i]);
        if (!path) continue;
        found++;
        check_map(path, names[i], 20000, i == 0 ? 200 : 0);
    }
    if (!found) check_skip("no real maps (meson option shared_maps)");
}

/* The room compiled and lit, as bytes. */
static bool room_bytes(void **data, size_t *size)
{
    scene s = {0};
    if (!scene_load_file(&s, RUNTIME_ROOM_MAP, &with_pvs)) return false;
    al_rad *rad = NULL;
    al_rad_lightmap map = {0};
    bool ok = al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK;
    if (ok) al_rad_step(rad, 50);
    ok = ok && al_rad_snapshot(rad, &map) == AL_OK;
    al_runtime_source src = {s.world, &s.input.input, rad, &map};
    ok = ok && al_runtime_write(&src, data, size) == AL_OK;
    al_rad_lightmap_free(&map);
    al_rad_destroy(rad);
    scene_free(&s);
    return ok;
}

CHECK_TEST(room, "/runtime/room/pool-door-and-light-answer-as-the-compiler")
{
    scene s = {0};
    REQUIRE(scene_load_file(&s, RUNTIME_ROOM_MAP, &with_pvs));
    al_rad *rad = NULL;
    al_rad_lightmap map = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK);
    al_rad_step(rad, 50);
    REQUIRE(al_rad_snapshot(rad, &map) == AL_OK);
    alrt_world *rt = export_world(&s, rad, &map);
    if (rt) {
        check_oracle(&s, rt, 5000, "room", rad, &map);
        /* Closed-form answers: water in the pool, the door is model 1, the message. */
        double pool[3] = {128, 128, 24}, air[3] = {128, 128, 100};
        CHECK(alrt_point_contents(rt, 0, pool) == ALRT_CONTENTS_WATER);
        CHECK(alrt_point_contents(rt, 0, air) == ALRT_CONTENTS_EMPTY);
        double a[3] = {200, 150, 64}, b[3] = {400, 150, 64};
        alrt_hit h;
        alrt_trace(rt, 0, a, b, &h);
        CHECK(h.hit && h.model == 1 && fabs(h.fraction - 100.0 / 200.0) < 1e-9);
        CHECK(h.normal[0] == -1);
        int stand = alrt_find_hull(rt, "stand");
        REQUIRE(stand > 0);
        double mins[3], maxs[3];
        alrt_hull(rt, stand, mins, maxs);
        alrt_trace(rt, stand, a, b, &h);
        CHECK(h.hit && fabs(h.fraction - (100.0 - maxs[0]) / 200.0) < 1e-9);
        const char *msg = alrt_entity_value(rt, 0, "message");
        CHECK(msg && strcmp(msg, "Allium engine test") == 0);
        CHECK(alrt_has_light(rt));
    }
    alrt_destroy(rt);
    al_rad_lightmap_free(&map);
    al_rad_destroy(rad);
    scene_free(&s);
}

static uint32_t le32(const uint8_t *b)
{
    return (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
}

CHECK_TEST(deterministic, "/runtime/bytes/written-twice-the-same-little-endian-file")
{
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    REQUIRE(room_bytes(&a, &na));
    REQUIRE(room_bytes(&b, &nb)); /* compiled, lit and written again from the text */
    CHECK(na == nb && memcmp(a, b, na) == 0);
    /* The header as FORMAT.md lays it out, read byte by byte. */
    const uint8_t *h = a;
    CHECK(memcmp(h, "ALLIUMRT", 8) == 0);
    CHECK(le32(h + 8) == ALRT_FORMAT_VERSION && le32(h + 12) == 8);
    CHECK(le32(h + 24) == na && le32(h + 28) == 0);
    CHECK(memcmp(h + 32, "HULL", 4) == 0 && memcmp(h + 32 + 7 * 24, "ENTS", 4) == 0);
    /* The file CRC: of the file with its own field read as zero (an independent sum: the
     * bytes are re-checksummed here with the field cleared). */
    uint8_t *copy = malloc(na);
    REQUIRE(copy);
    memcpy(copy, a, na);
    memset(copy + 16, 0, 4);
    CHECK(alrt_crc32(0, copy, na) == le32(h + 16));
    CHECK(alrt_crc32(0, "123456789", 9) == 0xcbf43926u); /* the CRC-32 check value */
    free(copy);
    free(a);
    free(b);
}

CHECK_TEST(corrupt, "/runtime/bytes/every-damaged-byte-is-refused-with-its-section")
{
    void *data = NULL;
    size_t size = 0;
    REQUIRE(room_bytes(&data, &size));
    uint8_t *bytes = data;
    char why[256];
    int accepted = 0, unnamed = 0, tried = 0;
    /* Every byte of the header, the directory and the start of each section, and bytes
     * spread over the rest (the CRC-32 catches any one changed byte; this checks that it
     * is asked everywhere). */
    size_t stride = size / 3000 + 1;
    for (size_t i = 0; i < size; i++) {
        bool near_start = i < 32 + 8 * 24;
        for (int s = 0; s < 8 && !near_start; s++) {
            size_t off = le32(bytes + 32 + 24 * s + 8);
            near_start = i >= off && i < off + 64;
        }
        if (!near_start && i % stride != 0) continue;
        tried++;
        uint8_t old = bytes[i];
        bytes[i] ^= (uint8_t) (1u << (i % 8));
        alrt_world *rt = NULL;
        alrt_status st = alrt_load(bytes, size, &rt, why, sizeof why);
        if (st == ALRT_OK) accepted++;
        if (strncmp(why, "section ", 8) != 0) unnamed++;
        alrt_destroy(rt);
        bytes[i] = old;
    }
    CHECK_MSG(accepted == 0, "%d of %d damaged bytes were accepted", accepted, tried);
    check_note("%d of %zu bytes damaged in turn", tried, size);
    CHECK_MSG(unnamed == 0, "%d messages name no section", unnamed);
    /* Cut short anywhere: refused. */
    for (size_t n = 0; n < size; n += 1 + n / 4) {
        alrt_world *rt = NULL;
        CHECK(alrt_load(bytes, n, &rt, why, sizeof why) != ALRT_OK && rt == NULL);
    }
    /* A damaged section with its checksums made right again: the reader's own checks name
     * the section and the reason (a node whose child points back up its tree). */
    alrt_world *rt = NULL;
    REQUIRE(alrt_load(bytes, size, &rt, why, sizeof why) == ALRT_OK);
    alrt_destroy(rt);
    const uint8_t *dir = bytes + 32 + 24; /* NODE's entry */
    size_t off = (size_t) le32(dir + 8);
    REQUIRE(le32(bytes + off) > 0);
    uint8_t *child = bytes + off + 4 + 32; /* node 0's front child */
    memset(child, 0, 4);                   /* node 0 */
    uint32_t crc = alrt_crc32(0, bytes + off, (size_t) le32(dir + 16));
    for (int k = 0; k < 4; k++) bytes[32 + 24 + 4 + k] = (uint8_t) (crc >> (8 * k));
    memset(bytes + 16, 0, 4);
    crc = alrt_crc32(0, bytes, size);
    for (int k = 0; k < 4; k++) bytes[16 + k] = (uint8_t) (crc >> (8 * k));
    CHECK(alrt_load(bytes, size, &rt, why, sizeof why) == ALRT_ERR_CORRUPT);
    CHECK_MSG(strstr(why, "section MODL") && strstr(why, "not a later node"), "%s", why);
    free(data);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
