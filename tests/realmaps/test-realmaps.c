/* Oracles on one real map (argv[1], a file name in the shared maps folder).
 *
 * The suite samples fewer points than allium-bench verify (its defaults are a million points
 * and 100,000 traces per hull); the counts below keep the whole suite within its time
 * budget on two cores: 250,000 points per hull (a million per map), 20,000 traces per hull.
 */
#include "al-live.h"
#include "al-rad.h"
#include "brush/expand.h"
#include "check.h"
#include "doc-fixture.h"
#include "mapfile/map-write.h"
#include "mapfile/texture.h"
#include "store/map-doc.h"
#include "al-epsilon.h"
#include "al-vec3.h"
#include "rad-check.h"
#include "scene.h"
#include "trace/rays.h"
#include "al-edits.h"
#include "al-oracle.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *map_name;
static const char *map_path;
static scene s;
static bool loaded;
static al_oracle *oracle;

static bool ready(void)
{
    if (!loaded) {
        check_fail(__FILE__, __LINE__, "%s did not compile", map_name);
        return false;
    }
    return true;
}

CHECK_TEST(compiles, "/realmaps/compiles-with-no-invalid-brush")
{
    if (!ready()) return;
    al_world_stats st;
    al_world_get_stats(s.world, &st);
    check_note("%s: %d brushes, %d solid for agents, %lld onion nodes, %d blocks, %.0f ms",
               map_name, st.input_brushes, st.collision_brushes, (long long) st.onion_nodes,
               st.blocks, st.ms_total);
    CHECK(st.invalid_brushes == 0);
    CHECK(st.collision_brushes > 0);
    CHECK(st.onion_nodes > 0);
}

static void report(const char *what, int hull, const al_verify_counts *c)
{
    check_note("%s, hull %s: %lld checked, %lld near a surface skipped, %lld mismatches%s", what,
               al_world_hull(s.world, hull)->name, (long long) c->checked,
               (long long) c->skipped, (long long) c->mismatches,
               c->normal_mismatches ? " (and normal mismatches)" : "");
    if (c->mismatches || c->normal_mismatches)
        check_note("  first: (%g %g %g) -> (%g %g %g), worst %g", c->example[0][0],
                   c->example[0][1], c->example[0][2], c->example[1][0], c->example[1][1],
                   c->example[1][2], c->worst);
}

CHECK_TEST(face_polys, "/realmaps/face-polygons-lie-on-their-brushes-and-close")
{
    if (!ready()) return;
    al_face_polys p;
    REQUIRE(al_face_polys_build(&s.input.input, &p) == AL_OK);
    char why[200];
    int bad = scene_face_polys_errors(&s.input.input, &p, why, sizeof why);
    CHECK_MSG(bad == 0, "%d brushes: %s", bad, why);
    al_world_stats st;
    al_world_get_stats(s.world, &st);
    CHECK(p.invalid_brushes == st.invalid_brushes);
    check_note("%d faces, %d points", p.face_count, p.point_count);
    al_face_polys_free(&p);
}

CHECK_TEST(solidity, "/realmaps/onion-solidity-matches-brute-force")
{
    if (!ready()) return;
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        al_verify_solidity(s.world, oracle, h, 250000, 1000 + h, &c);
        report("solidity", h, &c);
        CHECK(c.mismatches == 0);
        CHECK(c.checked > 200000);
    }
}

CHECK_TEST(map_trees, "/realmaps/map-trees-match-the-onion-tree")
{
    if (!ready()) return;
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        al_verify_map_trees(s.world, oracle, h, 100000, 2000 + h, &c);
        report("map tree", h, &c);
        CHECK(c.mismatches == 0);
    }
}

CHECK_TEST(traces, "/realmaps/traces-match-brute-force-sweeps")
{
    if (!ready()) return;
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        al_verify_traces(s.world, oracle, h, 20000, 0, 3000 + h, &c);
        report("traces", h, &c);
        CHECK(c.mismatches == 0 && c.normal_mismatches == 0);
        CHECK(c.checked == 20000);
    }
}

CHECK_TEST(plane_shift, "/realmaps/plane-shifting-matches-onion-traces")
{
    if (!ready()) return;
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        al_verify_plane_shift(s.world, oracle, h, 10000, 0, 4000 + h, &c);
        report("plane shifting", h, &c);
        CHECK(c.mismatches == 0 && c.normal_mismatches == 0);
    }
}

CHECK_TEST(open_cells, "/realmaps/open-cells-are-clear-and-traces-through-them-exact")
{
    if (!ready()) return;
    al_oracle *world = al_oracle_create_world(s.world);
    REQUIRE(world);
    for (int h = 0; h < al_world_hull_count(s.world); h++) {
        al_verify_counts c;
        int64_t extra;
        al_verify_open_cells(s.world, world, h, 100000, 5000 + h, &c, &extra);
        report("open cells", h, &c);
        CHECK(c.mismatches == 0);
        al_verify_open_traces(s.world, oracle, h, 10000, 64, 6000 + h, &c, &extra);
        check_note("open traces, hull %s: %lld of %lld answered by open cells",
                   al_world_hull(s.world, h)->name, (long long) extra, (long long) c.checked);
        report("open traces", h, &c);
        CHECK(c.mismatches == 0 && c.checked == 10000);
    }
    al_oracle_destroy(world);
}

/* Expanding without bevels (Quake 1's way) pushes each face out along its own normal, so at
 * a sharp edge the faces meet far beyond the true Minkowski sum. Find points inside such a
 * bevel-less expansion that the separating-axis oracle says are clear of the brush, and
 * check the compiled world agrees they are empty. */
CHECK_TEST(sharp, "/realmaps/sharp-prisms-are-not-over-expanded")
{
    if (!ready()) return;
    if (!strstr(map_name, "hull_expansion")) {
        check_skip("only for the q1_hull_expansion maps");
        return;
    }
    const al_world *w = s.world;
    al_rng rng = {5};
    long over = 0, wrong = 0;
    for (int h = 1; h < w->hull_count; h++) {
        const al_hull_desc *hd = &w->hulls[h];
        for (int i = 0; i < w->collision_count; i++) {
            const al_brush *b = w->collision[i];
            for (int n = 0; n < 30000; n++) {
                /* Within the bevel-less expansion's reach of the brush. */
                double p[3];
                for (int k = 0; k < 3; k++)
                    p[k] = b->mins[k] - 120 + (b->maxs[k] - b->mins[k] + 240) * al_rng_uniform(&rng);
                bool naive = true;
                for (int f = 0; f < b->side_count && naive; f++) {
                    const al_plane *pl = &w->planes.planes[b->sides[f].plane];
                    double d = pl->dist + al_box_support(pl->normal, hd->mins, hd->maxs);
                    if (al_dot(pl->normal, p) - d > -AL_SURFACE_EPSILON) naive = false;
                }
                if (!naive) continue;
                if (al_oracle_point_margin(oracle, hd->mins, hd->maxs, p) <= AL_SURFACE_EPSILON)
                    continue;
                over++;
                if (al_world_point_solid(w, h, p)) wrong++;
            }
        }
    }
    check_note("%ld sample points lie in a bevel-less expansion but are empty; %ld of them "
               "are solid in the compiled world",
               over, wrong);
    CHECK(over > 100); /* the map really is sharp */
    CHECK(wrong == 0);
}

/* The plane-point numbers of every face line in TEXT, as written, separated by single
 * spaces and one face per line: "-64 128 0 -64 0 0 ...\n". */
static char *plane_tokens(const char *text, size_t length)
{
    char *out = malloc(length + 1);
    if (!out) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < length;) {
        size_t start = i;
        while (i < length && text[i] != '\n') i++;
        size_t end = i++;
        size_t p = start;
        while (p < end && (text[p] == ' ' || text[p] == '\t')) p++;
        if (p == end || text[p] != '(') continue;
        for (int paren = 0; paren < 3 && p < end; paren++) {
            while (p < end && text[p] != '(') p++;
            p++;
            while (p < end && text[p] != ')') {
                while (p < end && (text[p] == ' ' || text[p] == '\t')) p++;
                if (p < end && text[p] == ')') break;
                while (p < end && text[p] != ' ' && text[p] != '\t' && text[p] != ')')
                    out[n++] = text[p++];
                out[n++] = ' ';
            }
            p++;
        }
        out[n++] = '\n';
    }
    out[n] = '\0';
    return out;
}

static bool uses_valve(const al_map *m)
{
    for (int e = 0; e < m->entity_count; e++)
        for (int b = 0; b < m->entities[e].brush_count; b++)
            for (int f = 0; f < m->entities[e].brushes[b].face_count; f++)
                if (m->entities[e].brushes[b].faces[f].valve) return true;
    return false;
}

/* The round trip's document I for this map, in the test folder (removed first). */
static const char *document_path(int i)
{
    /* A map of a sub-folder ("id/e1m2.map") has its folder in its file name. */
    char name[300];
    snprintf(name, sizeof name, "round-trip-%d-%s.allium", i, map_name);
    for (char *c = name; *c; c++)
        if (*c == '/') *c = '-';
    return fixture_path(name);
}

/* MAP imported into a new document at PATH and exported again as text. */
static char *through_document(const al_map *map, const char *path, bool valve, size_t *length,
                              char key[33])
{
    al_doc *doc = NULL;
    al_map *back = NULL;
    char *text = NULL;
    if (al_doc_create(path, &doc, NULL) == AL_OK && al_doc_import_map(doc, map, NULL) == AL_OK &&
        al_doc_content_key(doc, "test", key) == AL_OK &&
        al_doc_export_map(doc, &back, NULL) == AL_OK && !al_map_write(back, valve, &text, length))
        text = NULL;
    al_map_destroy(back);
    al_doc_close(doc);
    return text;
}

/* Whether two parsed maps hold the same entities, properties, brushes and faces, numbers
 * equal to TOLERANCE. Notes the first difference. */
static bool same_map(const al_map *a, const al_map *b, double tolerance)
{
    if (a->entity_count != b->entity_count) {
        check_note("%d entities against %d", a->entity_count, b->entity_count);
        return false;
    }
    for (int e = 0; e < a->entity_count; e++) {
        const al_map_entity *ea = &a->entities[e], *eb = &b->entities[e];
        bool same = ea->property_count == eb->property_count && ea->brush_count == eb->brush_count;
        /* Properties are a dictionary: the classname is written first whatever its place. */
        for (int p = 0; same && p < ea->property_count; p++) {
            const char *value = al_map_entity_value(eb, ea->properties[p].key);
            same = value && strcmp(ea->properties[p].value, value) == 0;
        }
        if (!same) {
            check_note("entity %d: properties or brush count differ", e);
            return false;
        }
        for (int br = 0; br < ea->brush_count; br++) {
            const al_map_brush *ba = &ea->brushes[br], *bb = &eb->brushes[br];
            if (ba->face_count != bb->face_count) {
                check_note("entity %d brush %d: %d faces against %d", e, br, ba->face_count,
                           bb->face_count);
                return false;
            }
            for (int f = 0; f < ba->face_count; f++) {
                const al_map_face *fa = &ba->faces[f], *fb = &bb->faces[f];
                const double na[] = {fa->u_axis[0], fa->u_axis[1], fa->u_axis[2], fa->u_offset,
                                     fa->v_axis[0], fa->v_axis[1], fa->v_axis[2], fa->v_offset,
                                     fa->offset[0], fa->offset[1], fa->rotation, fa->scale[0],
                                     fa->scale[1]};
                const double nb[] = {fb->u_axis[0], fb->u_axis[1], fb->u_axis[2], fb->u_offset,
                                     fb->v_axis[0], fb->v_axis[1], fb->v_axis[2], fb->v_offset,
                                     fb->offset[0], fb->offset[1], fb->rotation, fb->scale[0],
                                     fb->scale[1]};
                bool ok = strcmp(fa->material, fb->material) == 0 && fa->valve == fb->valve &&
                          fa->has_flags == fb->has_flags &&
                          (!fa->has_flags || memcmp(fa->flags, fb->flags, sizeof fa->flags) == 0);
                for (int i = 0; ok && i < 9; i++)
                    ok = fabs(fa->points[i / 3][i % 3] - fb->points[i / 3][i % 3]) <= tolerance;
                for (int i = 0; ok && i < 13; i++) ok = fabs(na[i] - nb[i]) <= tolerance;
                if (!ok) {
                    check_note("entity %d brush %d face %d differs (line %d)", e, br, f,
                               fa->line);
                    return false;
                }
            }
        }
    }
    return true;
}

CHECK_TEST(world_bytes, "/realmaps/a-saved-and-loaded-compile-answers-as-the-compiled-one")
{
    if (!ready()) return;
    void *bytes = NULL, *again = NULL;
    size_t size = 0, again_size = 0;
    REQUIRE(al_world_save(s.world, &bytes, &size) == AL_OK);
    al_world *w = NULL;
    REQUIRE(al_world_load(bytes, size, &w, NULL) == AL_OK);
    REQUIRE(al_world_save(w, &again, &again_size) == AL_OK);
    CHECK(again_size == size && memcmp(again, bytes, size) == 0);
    /* Open cells are not saved: the loaded world computes the same from its trees. */
    char why[300];
    CHECK_MSG(al_world_tree_differences(s.world, w, why, sizeof why) == 0, "%s", why);
    /* Oracle: the original world; every answer must be identical, not merely close. */
    al_rng rng = {17};
    int differ = 0, queries = 0;
    for (int i = 0; i < 20000; i++) {
        int h = i % al_world_hull_count(w);
        double p[3], q[3];
        al_verify_random_point(s.world, &rng, p);
        al_verify_random_point(s.world, &rng, q);
        for (int k = 0; k < 3; k++) q[k] = p[k] + (q[k] - p[k]) * 0.1;
        differ += al_world_point_solid(w, h, p) != al_world_point_solid(s.world, h, p);
        al_trace a, b;
        al_world_trace(w, h, p, q, &a);
        al_world_trace(s.world, h, p, q, &b);
        differ += a.fraction != b.fraction || a.hit != b.hit || a.model != b.model ||
                  memcmp(a.normal, b.normal, sizeof a.normal) != 0;
        queries += 2;
    }
    check_note("%s: %zu bytes; %d queries, %d answers differ", map_name, size, queries, differ);
    CHECK(differ == 0);
    free(again);
    free(bytes);
    al_world_destroy(w);
}

CHECK_TEST(visibility, "/realmaps/portals-leaks-and-the-pvs-against-lines-of-sight")
{
    REQUIRE(loaded);
    /* q1_hulls is a floor slab without walls: the void reaches its player start.
     * q1_mountain's terrain is flat tetrahedra that meet along knife edges, which Quake's
     * compilers find leaking (vis/seams.c). The others are sealed. */
    al_leak_info leak;
    bool leaks = al_world_leak(s.world, &leak);
    if (strcmp(map_name, "q1_hulls.map") == 0 || strcmp(map_name, "q1_mountain.map") == 0)
        CHECK_MSG(leaks, "%s is sealed", map_name);
    else
        CHECK_MSG(!leaks, "leak from entity %d (%s)", leaks ? leak.entity : -1,
                  leaks ? leak.classname : "");
    if (leaks) {
        CHECK(leak.point_count >= 2);
        CHECK(strcmp(leak.classname, "") != 0);
    }
    CHECK(al_world_portal_count(s.world) > 0);
    /* Coarse pass on every map; the flow too where it takes well under a second (the
     * benchmark's verify runs it on every map). */
    al_vis_stats vs;
    al_world_vis_stats(s.world, &vs);
    al_pvs_level level = vs.vis_leaves <= 300 ? AL_PVS_TIGHT : AL_PVS_COARSE;
    REQUIRE(al_world_build_vis(s.world, &s.input.input, level, 0) == AL_OK);
    al_world_vis_stats(s.world, &vs);
    al_oracle *sight = al_oracle_create_sight(s.world);
    REQUIRE(sight != NULL);
    al_verify_counts c;
    al_verify_pvs(s.world, sight, 20000, 11, &c);
    al_oracle_destroy(sight);
    fprintf(stderr, "# %s: %d portals, %d vis leaves, PVS %s: %.1f leaves visible (coarse %.1f)\n",
            map_name, vs.portals, vs.vis_leaves, vs.level == AL_PVS_TIGHT ? "tight" : "coarse",
            vs.level == AL_PVS_TIGHT ? vs.avg_visible_tight : vs.avg_visible_coarse,
            vs.avg_visible_coarse);
    CHECK(c.checked > 10000);
    CHECK_MSG(c.mismatches == 0, "%lld of %lld lines of sight missing, first (%g %g %g)-(%g %g %g)",
              (long long) c.mismatches, (long long) c.checked, c.example[0][0], c.example[0][1],
              c.example[0][2], c.example[1][0], c.example[1][1], c.example[1][2]);
    /* Symmetric rows. */
    int n = al_world_vis_leaf_count(s.world), asymmetric = 0;
    for (int a = 0; a < n; a += 7)
        for (int b = 0; b < n; b++)
            asymmetric += al_world_leaf_sees(s.world, a, b) != al_world_leaf_sees(s.world, b, a);
    CHECK(asymmetric == 0);
}

CHECK_TEST(round_trip, "/realmaps/map-to-document-to-map-keeps-everything")
{
    size_t size;
    char *original = NULL;
    FILE *file = fopen(map_path, "rb");
    REQUIRE(file);
    fseek(file, 0, SEEK_END);
    size = (size_t) ftell(file);
    fseek(file, 0, SEEK_SET);
    original = malloc(size);
    REQUIRE(original && fread(original, 1, size, file) == size);
    fclose(file);
    al_map *source = NULL;
    REQUIRE(al_map_read_buffer(original, size, &source, NULL) == AL_OK);
    bool valve = uses_valve(source);

    /* .map -> .allium -> .map -> .allium -> .map */
    size_t length1, length2;
    char key1[33], key2[33];
    char *text1 = through_document(source, document_path(1), valve, &length1,
                                   key1);
    REQUIRE(text1);
    al_map *again = NULL;
    REQUIRE(al_map_read_buffer(text1, length1, &again, NULL) == AL_OK);
    char *text2 = through_document(again, document_path(2), valve, &length2,
                                   key2);
    REQUIRE(text2);
    al_map *third = NULL;
    REQUIRE(al_map_read_buffer(text2, length2, &third, NULL) == AL_OK);

    /* Everything kept: exactly (the numbers are stored as read), which is within 1e-3. */
    CHECK(same_map(source, again, 0));
    CHECK(same_map(again, third, 0));
    CHECK(length1 == length2 && memcmp(text1, text2, length1) == 0);
    CHECK(strcmp(key1, key2) == 0);
    CHECK(uses_valve(again) == valve);
    /* The plane points come back as the very bytes of the source file. */
    char *tokens0 = plane_tokens(original, size), *tokens1 = plane_tokens(text1, length1);
    REQUIRE(tokens0 && tokens1);
    CHECK(strcmp(tokens0, tokens1) == 0);
    int faces = 0;
    for (const char *c = tokens0; *c; c++) faces += *c == '\n';
    check_note("%s (%s): %d entities, %d face lines; written back %zu bytes from %zu", map_name,
               valve ? "Valve 220" : "standard", source->entity_count, faces, length1, size);
    free(tokens0);
    free(tokens1);

    /* Through the document into the other dialect: geometry exact, texture coordinates of
     * each face's points equal wherever the other dialect can express the projection (all
     * of a standard map; Valve faces with axes in their projection plane). */
    size_t length3;
    char key3[33];
    char *text3 = through_document(source, document_path(1), !valve, &length3, key3);
    REQUIRE(text3);
    al_map *other = NULL;
    REQUIRE(al_map_read_buffer(text3, length3, &other, NULL) == AL_OK);
    CHECK(strcmp(key1, key3) == 0); /* the compiler reads nothing texture-related */
    int expressible = 0, not_expressible = 0, wrong = 0;
    double worst = 0;
    REQUIRE(other->entity_count == source->entity_count);
    for (int e = 0; e < source->entity_count; e++) {
        const al_map_entity *ea = &source->entities[e], *eb = &other->entities[e];
        REQUIRE(ea->brush_count == eb->brush_count);
        for (int b = 0; b < ea->brush_count; b++)
            for (int f = 0; f < ea->brushes[b].face_count; f++) {
                const al_map_face *fa = &ea->brushes[b].faces[f], *fb = &eb->brushes[b].faces[f];
                if (memcmp(fa->points, fb->points, sizeof fa->points) != 0) wrong++;
                double off[2], rot, sc[2];
                if (fa->valve && !al_texture_to_standard(fa, off, &rot, sc)) {
                    not_expressible++;
                    continue;
                }
                expressible++;
                for (int q = 0; q < 3; q++) {
                    double ua[2], ub[2];
                    al_texture_coords(fa, fa->points[q], ua);
                    al_texture_coords(fb, fa->points[q], ub);
                    /* Relative to the coordinate: numbers are printed to 17 digits. */
                    for (int k = 0; k < 2; k++)
                        worst = fmax(worst, fabs(ua[k] - ub[k]) / fmax(1, fabs(ua[k])));
                }
            }
    }
    check_note("as %s: %d faces with the same texture coordinates (worst relative difference "
               "%.2g), %d with Valve axes standard cannot express",
               valve ? "standard" : "Valve 220", expressible, worst, not_expressible);
    CHECK(wrong == 0);
    CHECK(worst < 1e-9);
    if (!valve) CHECK(not_expressible == 0);
    al_map_destroy(other);
    free(text3);
    al_map_destroy(source);
    al_map_destroy(again);
    al_map_destroy(third);
    free(text1);
    free(text2);
    free(original);
}

CHECK_TEST(splits, "/realmaps/split-polygons-lie-on-their-nodes-planes-in-their-cells")
{
    if (!ready()) return;
    /* The blocks at the middle of the map and at a quarter of its diagonal. */
    double lo[3], hi[3];
    al_world_bounds(s.world, lo, hi);
    for (int q = 1; q <= 2; q++) {
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = lo[k] + (hi[k] - lo[k]) * q / 4.0;
        char why[256] = "";
        int count;
        int bad = scene_split_errors(s.world, p, &count, why, sizeof why);
        check_note("%s: %d split polygons in the block at (%g %g %g)", map_name, count, p[0],
                   p[1], p[2]);
        CHECK_MSG(bad == 0, "%d of %d polygons wrong: %s", bad, count, why);
    }
}

CHECK_TEST(light_rays, "/realmaps/light-rays-agree-with-a-sweep-through-the-brushes")
{
    if (!ready()) return;
    /* Segments between random luxel sample points (the rays radiosity casts), blocked or
     * not by the light trees, against a brute-force sweep over the brushes that block
     * light. Lines grazing an edge (a thin and a hair-fat sweep disagree), and those that
     * touch a surface only at an end (a sample point on another brush's plane) may go
     * either way and are left out. */
    al_rad *rad;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, &(al_rad_options){.luxel_size = 64}, &rad,
                          &d) == AL_OK);
    al_oracle *light = al_oracle_create_light(s.world);
    REQUIRE(light != NULL);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    al_rng rng = {0x5eed0000u + (uint64_t) strlen(map_name)};
    const double zero[3] = {0, 0, 0}, hair[3] = {0.05, 0.05, 0.05},
                 nhair[3] = {-0.05, -0.05, -0.05};
    int checked = 0, blocked = 0, wrong = 0, differ = 0;
    al_ray_tree tree;
    REQUIRE(al_ray_tree_build(s.world, &tree));
    for (int i = 0; st.patches > 1 && i < 20000; i++) {
        al_rad_luxel a, b;
        al_rad_luxel_get(rad, (int32_t) (al_rng_uniform(&rng) * st.patches), &a);
        al_rad_luxel_get(rad, (int32_t) (al_rng_uniform(&rng) * st.patches), &b);
        /* The solver's flat copy of the light trees answers as they do, to the bit, even
         * where the sweep cannot judge. */
        double t = al_verify_light_trees_hit(s.world, a.point, b.point),
               flat = al_ray_hit(&tree, a.point, b.point);
        if (!(flat == t) && differ++ == 0)
            check_note("flat tree %.17g, light trees %.17g", flat, t);
        al_oracle_hit thin, fat;
        al_oracle_sweep(light, zero, zero, a.point, b.point, &thin);
        al_oracle_sweep(light, nhair, hair, a.point, b.point, &fat);
        if (thin.hit != fat.hit) continue;
        double span[3];
        al_sub(b.point, a.point, span);
        double length = al_length(span);
        if (thin.hit && (thin.fraction * length < 0.05 || (1 - thin.fraction) * length < 0.05))
            continue;
        /* A line that only touches a brush, along an edge or a face it lies in, and goes on
         * outside it (e4m8: through a wedge's vertical edge; e2m5: along a block's top face
         * to the top edge of a ramp) is on the boundary there: the fat sweep meets the
         * brush as the thin one does, and the trees may go either way. A hit counts when
         * the line is inside a brush 0.05 units past the contact, deeper than the rays'
         * tolerance: a line within AL_RAY_EPSILON of a face runs along it (e1m1: a line
         * 3e-13 units under a ceiling at z = 96, its ends rounded off the plane). */
        if (thin.hit) {
            double past[3];
            al_madd(a.point, span, thin.fraction + 0.05 / length, past);
            if (al_oracle_point_margin(light, zero, zero, past) > -AL_RAY_EPSILON) continue;
        }
        /* A line that runs along a surface (two luxels of one floor: e1m4 has one) is on
         * the solid's boundary from end to end and may go either way. */
        double middle[3];
        al_madd(a.point, span, 0.5, middle);
        if (!thin.hit && al_oracle_point_margin(light, nhair, hair, middle) < 0) continue;
        /* So are the trees' answers at an end (e1m4 has a luxel exactly on another
         * brush's face, which the trees call solid and the sweep does not). */
        double tf = al_verify_light_trees_hit(s.world, a.point, b.point);
        if (tf < 1.0 && (tf * length < 0.05 || (1 - tf) * length < 0.05)) continue;
        bool hit = tf < 1.0;
        checked++;
        blocked += thin.hit;
        if (hit != thin.hit && wrong++ == 0)
            check_note("first disagreement: (%.17g %.17g %.17g) to (%.17g %.17g %.17g): "
                       "trees %d, sweep %d",
                       a.point[0], a.point[1], a.point[2], b.point[0], b.point[1], b.point[2],
                       hit, thin.hit);
    }
    check_note("%s: %d light rays checked, %d blocked", map_name, checked, blocked);
    CHECK(st.patches < 2 || checked > 10000);
    CHECK_MSG(wrong == 0, "%d of %d rays disagree", wrong, checked);
    CHECK_MSG(differ == 0, "%d rays differ between the flat and the light trees", differ);
    al_ray_tree_free(&tree);
    al_oracle_destroy(light);
    al_rad_destroy(rad);
    al_diag_list_clear(&d);
}

CHECK_TEST(sky_gate, "/realmaps/sun-rays-the-pvs-rules-out-end-on-no-sky")
{
    if (!ready()) return;
    /* The luxels whose vis leaf sees no leaf with a sky face cast no sun rays (rad/patches.c
     * al_rad_find_sky_leaves): cast them all, none may reach the sky. A leaking map has no
     * PVS, and no luxel is left out. */
    al_vis_stats vs;
    al_world_vis_stats(s.world, &vs);
    if (vs.level == AL_PVS_NONE)
        REQUIRE(al_world_build_vis(s.world, &s.input.input, AL_PVS_COARSE, 0) == AL_OK);
    al_rad *rad;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, &(al_rad_options){.luxel_size = 64}, &rad, &d) ==
            AL_OK);
    int64_t gated, rays;
    char why[300] = "";
    int64_t wrong = rad_check_sky_gate(rad, &gated, &rays, why, sizeof why);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    check_note("%s: %lld of %lld luxels see no sky by the PVS (%d lights, %d of them the sky "
               "dome's); their %lld sun rays cast, %lld reach the sky",
               map_name, (long long) gated, (long long) st.patches, st.lights, st.dome_lights,
               (long long) rays, (long long) wrong);
    CHECK_MSG(wrong == 0, "%s: %lld sun rays the PVS ruled out reach the sky: %s", map_name,
              (long long) wrong, why);
    al_rad_destroy(rad);
    al_diag_list_clear(&d);
}

CHECK_TEST(radiosity, "/realmaps/radiosity-reaches-one-percent-with-its-books-balanced")
{
    if (!ready()) return;
    /* 64-unit luxels keep the suite within its budget (allium-bench rad measures 16); the
     * ThreadSanitizer run, many times slower, sets ALLIUM_TEST_RAD="LUXEL RESIDUAL" to
     * stop earlier. */
    double luxel = 64, target = 0.01;
    const char *env = getenv("ALLIUM_TEST_RAD");
    if (env && sscanf(env, "%lf %lf", &luxel, &target) != 2) luxel = 64, target = 0.01;
    al_rad *rad;
    al_diag_list d = {0};
    REQUIRE(al_rad_create(s.world, &s.input.input, &(al_rad_options){.luxel_size = luxel},
                          &rad, &d) == AL_OK);
    for (size_t i = 0; i < d.count; i++)
        CHECK_MSG(d.items[i].severity < AL_SEVERITY_ERROR && d.items[i].entity >= 0,
                  "%s", d.items[i].message);
    al_rad_stats st;
    al_rad_get_stats(rad, &st);
    double last = 1;
    int rises = 0;
    while (!st.converged && st.residual > target) {
        if (al_rad_step(rad, st.direct_done ? 64 : st.lights) == 0) break;
        al_rad_get_stats(rad, &st);
        rises += st.residual > last + 1e-12;
        last = st.residual;
        double sum = st.absorbed + st.escaped + st.unshot;
        if (fabs(sum - st.emitted) > 1e-6 * st.emitted) {
            CHECK_MSG(false, "books: %g + %g + %g != %g", st.absorbed, st.escaped, st.unshot,
                      st.emitted);
            break;
        }
    }
    check_note("%s: %d patches, %d lights, %lld shots, residual %.4f, escaped %.1f%%, "
               "%lld rays, %.0f ms", map_name, st.patches, st.lights, (long long) st.shots,
               st.residual, st.emitted > 0 ? 100 * st.escaped / st.emitted : 0,
               (long long) st.rays, st.ms);
    CHECK(st.patches > 0);
    CHECK(rises == 0);
    CHECK_MSG(st.residual <= target || st.converged, "residual %g", st.residual);
    CHECK(st.escaped >= -0.02 * st.emitted);
    al_rad_lightmap map;
    REQUIRE(al_rad_snapshot(rad, &map) == AL_OK);
    int bad = 0;
    for (int t = 0; t < map.width * map.height; t++)
        for (int k = 0; k < 3; k++) bad += !isfinite(map.texels[t][k]) || map.texels[t][k] < 0;
    CHECK_MSG(bad == 0, "%d bad texels", bad);
    /* Every luxel's sample point is in empty space. */
    int solid = 0;
    for (int i = 0; i < st.patches; i++) {
        al_rad_luxel l;
        al_rad_luxel_get(rad, i, &l);
        solid += al_world_point_solid(s.world, 0, l.point);
    }
    CHECK_MSG(solid == 0, "%d sample points in solid", solid);
    /* The state as the map's cache keeps it: a new solver of the same map put back to it
     * shows the very same light and books; one of another luxel size refuses it. */
    void *bytes = NULL;
    size_t size = 0;
    REQUIRE(al_rad_save(rad, &bytes, &size) == AL_OK);
    al_rad *again = NULL, *other = NULL;
    REQUIRE(al_rad_create(s.world, &s.input.input, &(al_rad_options){.luxel_size = luxel},
                          &again, NULL) == AL_OK);
    REQUIRE(al_rad_restore(again, bytes, size) == AL_OK);
    al_rad_stats sa;
    al_rad_get_stats(again, &sa);
    CHECK(sa.shots == st.shots && sa.residual == st.residual && sa.emitted == st.emitted &&
          sa.absorbed == st.absorbed && sa.escaped == st.escaped);
    al_rad_lightmap restored;
    REQUIRE(al_rad_snapshot(again, &restored) == AL_OK);
    CHECK(restored.width == map.width && restored.height == map.height &&
          memcmp(restored.texels, map.texels,
                 (size_t) map.width * (size_t) map.height * sizeof map.texels[0]) == 0);
    REQUIRE(al_rad_create(s.world, &s.input.input, &(al_rad_options){.luxel_size = 2 * luxel},
                          &other, NULL) == AL_OK);
    CHECK(al_rad_restore(other, bytes, size) == AL_ERR_CORRUPT);
    check_note("%s: radiosity state %zu bytes", map_name, size);
    al_rad_lightmap_free(&restored);
    al_rad_destroy(again);
    al_rad_destroy(other);
    free(bytes);
    al_rad_lightmap_free(&map);
    al_rad_destroy(rad);
    al_diag_list_clear(&d);
}

CHECK_TEST(light_across_edits, "/realmaps/light-carried-across-edits-is-the-new-worlds")
{
    if (!ready()) return;
    /* Lit to 5% at 64-unit luxels, then random edits, each world updated from the last
     * and its solver from the last solver: the direct light must equal a new solver's,
     * and after the corrections the bounced light must equal the kernel of the new world
     * times what was sent (about 100 groups gathered anew per edit).
     * ALLIUM_TEST_RAD_EDITS sets the number of edits (the ThreadSanitizer run asks for
     * fewer), ALLIUM_TEST_RAD_GROUPS the number of groups gathered anew (every group: a
     * large number). */
    int edits = 4, groups = 100;
    const char *env = getenv("ALLIUM_TEST_RAD_EDITS");
    if (env) edits = atoi(env);
    if ((env = getenv("ALLIUM_TEST_RAD_GROUPS")) && atoi(env) > 0) groups = atoi(env);
    rad_edit_report r;
    rad_check_edits(&s.input.input, s.world, &(al_rad_options){.luxel_size = 64}, 0.05, edits, 29,
                    groups, &r);
    CHECK_MSG(r.failed == 0 && r.edits == edits, "%s: %d edits, %d failed", map_name, r.edits,
              r.failed);
    CHECK_MSG(r.clusters_off == 0, "%s: %lld luxels in another vis leaf than a new solver's",
              map_name, r.clusters_off);
    CHECK_MSG(r.worst_direct < 1e-3 && r.worst_bounce < 2e-3 && r.books_off == 0,
              "%s: direct %.2e, bounced %.2e, %d unbalanced: %s", map_name, r.worst_direct,
              r.worst_bounce, r.books_off, r.why);
    /* Rays through an edge two brushes share: a tie the light trees and the PVS break
     * differently (rad-check.h). The update corrects the pairs whose PVS gate differs
     * between the worlds (rad/update.c), so none may be left. */
    CHECK_MSG(r.ties == 0, "%s: %d of %lld luxels differ by rays through edges", map_name, r.ties,
              r.luxels);
    check_note("%s: %d edits, %lld panels corrected; direct light off by at most %.1e (and %d "
               "luxels by rays through edges, which the PVS and the light trees break "
               "differently), bounced %.1e of the mean (%d luxels gathered anew)", map_name,
               r.edits, r.corrections, r.worst_direct, r.ties, r.worst_bounce, r.checked);
}

CHECK_TEST(incremental, "/realmaps/incremental-compiles-equal-full-compiles")
{
    if (!ready()) return;
    /* 170 edits per map, over a thousand over the real maps. Batches of ten,
     * each compared with a full compile tree by tree. ALLIUM_TEST_EDITS="EDITS BATCH"
     * changes the amounts. */
    int edits = 170, batch = 10;
    const char *env = getenv("ALLIUM_TEST_EDITS");
    if (env && sscanf(env, "%d %d", &edits, &batch) != 2) edits = 170, batch = 10;
    scene_edit_report r;
    scene_edit_check(&s.input.input, edits, batch, 300, 0, 23, &r);
    CHECK_MSG(r.failed_updates == 0 && r.tree_differences == 0, "%d failed, %d trees differ: %s",
              r.failed_updates, r.tree_differences, r.why);
    CHECK_MSG(r.solidity_mismatches == 0, "%lld of %lld points disagree with the oracle",
              (long long) r.solidity_mismatches, (long long) r.solidity_checked);
    CHECK_MSG(r.portal_differences == 0, "%d batches' portals differ from a full compile's: %s",
              r.portal_differences, r.why);
    CHECK_MSG(r.leaf_face_differences == 0,
              "%d batches' faces in vis leaves differ from those found anew: %s",
              r.leaf_face_differences, r.why);
    check_note("%s: %d edits in %d batches: %.1f of %.0f blocks built, %.0f brushes copied "
               "per update, the portals of %.1f blocks copied (all equal a full compile's), "
               "the faces of %.1f of %.0f brushes placed in vis leaves anew",
               map_name, r.edits, r.batches, r.blocks_built_mean, r.blocks_mean,
               r.brushes_copied_mean, r.portal_blocks_copied_mean, r.face_brushes_placed_mean,
               r.face_brushes_mean);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test-realmaps MAP-NAME\n");
        return 2;
    }
    map_name = argv[1];
    if (argc > 2) fixture_set_dir(argv[2]);
    const char *path = scene_shared_map(map_name);
    map_path = path;
    if (!path) {
        static char reason[512];
        snprintf(reason, sizeof reason, "real map %s not found (meson option shared_maps: %s)",
                 map_name, scene_shared_maps() ? scene_shared_maps() : "folder absent");
        check_skip_all(reason);
        return check_main(argc - 1, argv + 1);
    }
    loaded = scene_load_file(&s, path, NULL);
    if (loaded) oracle = al_oracle_create(s.world);
    int status = check_main(argc - 1, argv + 1);
    if (path) {
        document_path(1);
        document_path(2);
    }
    al_oracle_destroy(oracle);
    scene_free(&s);
    return status;
}
