/* Scene meshes and picking. Picking is checked against a brute-force intersection of the
 * ray with every face polygon of every brush (plane hit, then point in convex polygon),
 * on the sample map, the generated map and the real maps; the picking tree is also
 * checked against a scan of every brush in input order, which must give the same brush,
 * face, entity and distance for every ray and every set of flags. */
#include "al-render.h"
#include "check.h"
#include "materials/material-defaults.h"
#include "scene.h"
#include "scene/scene.h"

#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "al-edits.h"

typedef struct loaded {
    scene sc;
    al_face_polys polys;
    al_scene *scene;
} loaded;

static bool load(loaded *l, const char *path)
{
    memset(l, 0, sizeof *l);
    if (!scene_load_file(&l->sc, path, NULL)) return false;
    if (al_face_polys_build(&l->sc.input.input, &l->polys) != AL_OK) return false;
    al_scene_desc d = {.input = &l->sc.input.input, .world = l->sc.world};
    return al_scene_build(&d, &l->scene) == AL_OK;
}

static void unload(loaded *l)
{
    al_scene_destroy(l->scene);
    al_face_polys_free(&l->polys);
    scene_free(&l->sc);
}

/* The nearest face polygon hit by the ray (brute force); its distance, or INFINITY. */
static double brute_pick(const al_face_polys *p, const double o[3], const double d[3],
                         bool skip_tools, const al_input *in, int *brush)
{
    double best = INFINITY;
    *brush = -1;
    for (int i = 0; i < p->face_count; i++) {
        const al_face_poly *f = &p->faces[i];
        if (skip_tools && f->material >= 0 &&
            (in->materials[f->material].flags & (AL_MATERIAL_CLIP | AL_MATERIAL_HINT |
                                                 AL_MATERIAL_NONSOLID | AL_MATERIAL_NODRAW)))
            continue;
        double dn = f->normal[0] * d[0] + f->normal[1] * d[1] + f->normal[2] * d[2];
        if (dn >= 0) continue; /* faces are seen from the front only */
        double t = -(f->normal[0] * o[0] + f->normal[1] * o[1] + f->normal[2] * o[2] - f->dist) / dn;
        if (t < 0 || t >= best) continue;
        double x[3] = {o[0] + d[0] * t, o[1] + d[1] * t, o[2] + d[2] * t};
        const double (*pt)[3] = p->points + f->first_point;
        bool inside = true;
        for (int v = 0; v < f->point_count && inside; v++) {
            const double *a = pt[v], *b = pt[(v + 1) % f->point_count];
            double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
            double w[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
            double c[3] = {e[1] * w[2] - e[2] * w[1], e[2] * w[0] - e[0] * w[2],
                           e[0] * w[1] - e[1] * w[0]};
            /* Clockwise seen from the front: inside points are to the right of each edge. */
            if (c[0] * f->normal[0] + c[1] * f->normal[1] + c[2] * f->normal[2] > 1e-6) inside = false;
        }
        if (!inside) continue;
        best = t;
        *brush = f->brush;
    }
    return best;
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool same_pick(const al_pick *a, const al_pick *b)
{
    if (a->kind != b->kind) return false;
    if (a->kind == AL_PICK_NONE) return true;
    return a->brush == b->brush && a->face == b->face && a->entity == b->entity && a->t == b->t &&
           memcmp(a->normal, b->normal, sizeof a->normal) == 0;
}

/* The tree against the scan, on the same rays, for every combination of flags, with no
 * brush hidden and with a third of them hidden (a hidden brush is never picked); notes
 * the time per pick of each. */
static void check_tree_equals_scan(loaded *l, const double (*rays)[6], int count)
{
    static const unsigned flag_sets[] = {0, AL_PICK_SKIP_TOOLS, AL_PICK_SKIP_ENTITIES,
                                         AL_PICK_SKIP_TOOLS | AL_PICK_SKIP_ENTITIES};
    int n = l->scene->brush_count;
    uint8_t *mask = calloc((size_t) n + 1, 1);
    REQUIRE(mask);
    for (int b = 0; b < n; b++) mask[b] = (uint8_t) ((b * 2654435761u >> 7) % 3 == 0);
    /* Point entities too: every other one. */
    int ne = l->scene->input_entity_count;
    uint8_t *entity_mask = calloc((size_t) ne + 1, 1);
    REQUIRE(entity_mask);
    for (int e = 0; e < ne; e++) entity_mask[e] = (uint8_t) (e % 2);
    const al_pick_mask mask_of = {mask, n, entity_mask, ne};
    int differ = 0, hidden_picked = 0, picks = 0, entity_picks = 0;
    double tree_s = 0, scan_s = 0;
    for (int masked = 0; masked < 2; masked++) {
        for (size_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++) {
            for (int i = 0; i < count; i++, picks++) {
                al_pick a, b;
                double t0 = seconds();
                bool ha = masked ? al_scene_pick_visible(l->scene, rays[i], rays[i] + 3,
                                                         flag_sets[f], &mask_of, &a)
                                 : al_scene_pick(l->scene, rays[i], rays[i] + 3, flag_sets[f], &a);
                double t1 = seconds();
                bool hb = al_scene_pick_scan(l->scene, rays[i], rays[i] + 3, flag_sets[f],
                                             masked ? &mask_of : NULL, &b);
                tree_s += t1 - t0;
                scan_s += seconds() - t1;
                if (ha != hb || !same_pick(&a, &b)) {
                    if (differ++ < 5)
                        check_note("ray %d flags %u%s: tree brush %d face %d t=%.17g, scan brush "
                                   "%d face %d t=%.17g",
                                   i, flag_sets[f], masked ? " (a third hidden)" : "", a.brush,
                                   a.face, a.t, b.brush, b.face, b.t);
                }
                if (masked && ha && a.kind == AL_PICK_FACE && mask[a.brush]) hidden_picked++;
                if (masked && ha && a.kind == AL_PICK_ENTITY && entity_mask[a.entity])
                    hidden_picked++;
                if (!masked && ha && a.kind == AL_PICK_ENTITY && entity_mask[a.entity])
                    entity_picks++;
            }
        }
    }
    free(mask);
    free(entity_mask);
    CHECK_MSG(differ == 0, "%d of %d picks differ between the tree and the scan", differ, picks);
    CHECK_MSG(hidden_picked == 0, "%d picks found a hidden brush or entity", hidden_picked);
    check_note("%d picks found an entity the mask then hides", entity_picks);
    check_note("%d brushes, %d tree nodes: %.0f ns per pick with the tree, %.0f ns scanning",
               l->scene->brush_count, l->scene->bvh->count, 1e9 * tree_s / picks,
               1e9 * scan_s / picks);
}

static bool box_apart(const void *context, const double mn[3], const double mx[3])
{
    const double *q = context; /* mins, then maxs */
    for (int k = 0; k < 3; k++)
        if (mx[k] < q[k] || mn[k] > q[3 + k]) return true;
    return false;
}

/* The tree's marking of the brushes a box may touch (what the renderer's frustum culling
 * walks) against every brush's own box: a brush whose box meets the query box is always
 * marked; notes how many the tree marked beyond those. */
static void check_marks(loaded *l, int queries, unsigned seed)
{
    double mn[3], mx[3];
    REQUIRE(al_scene_bounds(l->scene, mn, mx));
    int n = l->scene->brush_count;
    uint32_t *stamp = calloc((size_t) n + 1, sizeof *stamp);
    REQUIRE(stamp != NULL);
    long missed = 0, meeting = 0, extra = 0;
    for (int q = 0; q < queries; q++) {
        double box[6];
        for (int k = 0; k < 3; k++) {
            double a = mn[k] + (mx[k] - mn[k]) * (rand_r(&seed) / (double) RAND_MAX);
            double size = (mx[k] - mn[k]) * (rand_r(&seed) / (double) RAND_MAX) * 0.3;
            box[k] = a, box[3 + k] = a + size;
        }
        REQUIRE(al_scene_bvh_mark(l->scene, box_apart, box, stamp, (uint32_t) q + 1));
        for (int b = 0; b < n; b++) {
            const al_mesh *m = l->scene->brushes[b];
            bool marked = stamp[b] == (uint32_t) q + 1;
            bool meets = m && !box_apart(box, m->mins, m->maxs);
            meeting += meets;
            missed += meets && !marked;
            extra += marked && !meets;
        }
    }
    CHECK_MSG(missed == 0, "%ld brushes meeting a query box were not marked", missed);
    CHECK(meeting > 0);
    check_note("%d query boxes: %ld brushes met them, the tree marked %ld more", queries,
               meeting, extra);
    free(stamp);
}

static void check_picks(loaded *l, int rays, unsigned seed)
{
    check_marks(l, 200, seed);
    double mn[3], mx[3];
    REQUIRE(al_scene_bounds(l->scene, mn, mx));
    int hits = 0, mismatches = 0;
    double (*all)[6] = calloc((size_t) rays, sizeof *all);
    REQUIRE(all != NULL);
    for (int i = 0; i < rays; i++) {
        double o[3], target[3], d[3], len = 0;
        for (int k = 0; k < 3; k++) {
            o[k] = mn[k] + (mx[k] - mn[k]) * (rand_r(&seed) / (double) RAND_MAX);
            target[k] = mn[k] + (mx[k] - mn[k]) * (rand_r(&seed) / (double) RAND_MAX);
            d[k] = target[k] - o[k];
            len += d[k] * d[k];
        }
        len = sqrt(len);
        if (len < 1) continue;
        for (int k = 0; k < 3; k++) d[k] /= len;
        memcpy(all[i], o, sizeof o);
        memcpy(all[i] + 3, d, sizeof d);
        al_pick pk;
        bool hit = al_scene_pick(l->scene, o, d, AL_PICK_SKIP_ENTITIES, &pk);
        int brush;
        double t = brute_pick(&l->polys, o, d, false, &l->sc.input.input, &brush);
        /* A ray starting inside a brush sees through it; the brute force does not know,
         * so only rays starting in empty space are compared. */
        bool start_inside = false;
        for (int b = 0; b < l->polys.brush_count && !start_inside; b++) {
            if (l->polys.brush_first[b] == l->polys.brush_first[b + 1]) continue;
            bool in = true;
            for (int f = l->polys.brush_first[b]; f < l->polys.brush_first[b + 1] && in; f++) {
                const al_face_poly *fp = &l->polys.faces[f];
                in = fp->normal[0] * o[0] + fp->normal[1] * o[1] + fp->normal[2] * o[2] - fp->dist < -1e-3;
            }
            start_inside = in;
        }
        if (start_inside) continue;
        if (isinf(t) != !hit || (hit && fabs(pk.t - t) > 1e-6 * (1 + t))) {
            if (mismatches++ < 5)
                check_note("ray %d: pick %s t=%g brush %d, brute force t=%g brush %d", i,
                           hit ? "hit" : "missed", hit ? pk.t : 0, pk.brush, t, brush);
        }
        hits += hit;
    }
    CHECK_MSG(mismatches == 0, "%d of %d rays disagree", mismatches, rays);
    CHECK(hits > rays / 10);
    check_note("%d rays, %d hits", rays, hits);
    /* Rays of length below 1 were skipped above and are left zero: no direction, which
     * both pickers must survive too. */
    check_tree_equals_scan(l, (const double (*)[6]) all, rays);
    free(all);
}

CHECK_TEST(box, "/scene/one-box-has-six-faces-twelve-triangles-twelve-edges-each-twice")
{
    static const char *text = "{\n\"classname\" \"worldspawn\"\n{\n"
                              "( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) stone 0 0 0 1 1\n"
                              "( 64 0 0 ) ( 64 0 1 ) ( 64 1 0 ) stone 0 0 0 1 1\n"
                              "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) stone 0 0 0 1 1\n"
                              "( 0 64 0 ) ( 1 64 0 ) ( 0 64 1 ) stone 0 0 0 1 1\n"
                              "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) stone 0 0 0 1 1\n"
                              "( 0 0 64 ) ( 0 1 64 ) ( 1 0 64 ) clip 0 0 0 1 1\n}\n"
                              "}\n{\n\"classname\" \"light\"\n\"origin\" \"32 32 128\"\n}\n";
    loaded l;
    memset(&l, 0, sizeof l);
    REQUIRE(scene_load_text(&l.sc, text, strlen(text), NULL));
    REQUIRE(al_face_polys_build(&l.sc.input.input, &l.polys) == AL_OK);
    float colours[2][3] = {{0.5f, 0.25f, 1.0f}, {0, 0, 0}};
    al_scene_desc d = {.input = &l.sc.input.input, .world = l.sc.world,
                       .material_colours = (const float (*)[3]) colours};
    REQUIRE(al_scene_build(&d, &l.scene) == AL_OK);
    al_scene_stats st;
    al_scene_get_stats(l.scene, &st);
    CHECK(st.faces == 6 && st.triangles == 12 && st.edges == 24 && st.entities == 1);
    int tools = 0;
    const al_mesh *m = l.scene->brushes[0];
    for (int f = 0; f < m->face_count; f++) tools += (m->faces[f].flags & AL_FACE_TOOL) != 0;
    CHECK(tools == 1);
    int stone = l.sc.input.input.faces[0].material;
    const al_vertex *v = &m->tris[m->faces[0].first_tri];
    CHECK(v->colour[0] == lrintf(colours[stone][0] * 255) && v->colour[2] == lrintf(colours[stone][2] * 255));
    double mn[3], mx[3];
    REQUIRE(al_scene_bounds(l.scene, mn, mx));
    CHECK(mn[0] == 0 && mx[2] == 136); /* the light's box reaches 128 + 8 */
    /* Picking: straight down onto the clip face, through it when tools are skipped. */
    al_pick pk;
    REQUIRE(al_scene_pick(l.scene, (double[3]){20, 20, 100}, (double[3]){0, 0, -1}, 0, &pk));
    CHECK(pk.kind == AL_PICK_FACE && pk.brush == 0 && pk.face == 5);
    CHECK_NEAR(pk.t, 36, 1e-9);
    CHECK_NEAR(pk.normal[2], 1, 1e-9);
    /* One clip face does not make a tool brush: skipping tools still picks it. */
    CHECK(al_scene_pick(l.scene, (double[3]){20, 20, 100}, (double[3]){0, 0, -1},
                        AL_PICK_SKIP_TOOLS, &pk) && pk.brush == 0);
    REQUIRE(al_scene_pick(l.scene, (double[3]){32, 32, 300}, (double[3]){0, 0, -1}, 0, &pk));
    CHECK(pk.kind == AL_PICK_ENTITY && pk.entity == 1);
    CHECK_NEAR(pk.t, 300 - 136, 1e-9);
    REQUIRE(al_scene_entity_bounds(l.scene, 1, mn, mx));
    CHECK(mn[2] == 120);
    /* From inside the brush nothing of it is hit. */
    CHECK(!al_scene_pick(l.scene, (double[3]){32, 32, 32}, (double[3]){1, 0, 0},
                         AL_PICK_SKIP_ENTITIES, &pk));
    unload(&l);
}

CHECK_TEST(entity_looks, "/scene/point-entities-take-the-size-and-colour-their-class-gives")
{
    static const char *text = "{\n\"classname\" \"worldspawn\"\n}\n"
                              "{\n\"classname\" \"monster_ogre\"\n\"origin\" \"100 0 24\"\n}\n"
                              "{\n\"classname\" \"light\"\n\"origin\" \"0 0 0\"\n}\n"
                              "{\n\"classname\" \"item_shells\"\n\"origin\" \"0 64 0\"\n}\n";
    loaded l;
    memset(&l, 0, sizeof l);
    REQUIRE(scene_load_text(&l.sc, text, strlen(text), NULL));
    /* The ogre's class gives both, the light's nothing, the shells' a colour alone. */
    al_entity_look looks[4] = {
        {0},
        {.has_box = true,
         .mins = {-32, -32, -24},
         .maxs = {32, 32, 64},
         .has_colour = true,
         .colour = {1, 0, 0.5f}},
        {0},
        {.has_colour = true, .colour = {0, 1, 0}},
    };
    al_scene_desc d = {.input = &l.sc.input.input, .world = l.sc.world, .entity_looks = looks};
    REQUIRE(al_scene_build(&d, &l.scene) == AL_OK);
    double mn[3], mx[3];
    REQUIRE(al_scene_entity_bounds(l.scene, 1, mn, mx));
    CHECK(mn[0] == 68 && mn[1] == -32 && mn[2] == 0 && mx[0] == 132 && mx[2] == 88);
    REQUIRE(al_scene_entity_bounds(l.scene, 2, mn, mx));
    CHECK(mn[0] == -8 && mx[2] == 8); /* the built-in light box */
    REQUIRE(al_scene_entity_bounds(l.scene, 3, mn, mx));
    CHECK(mn[2] == 0 && mx[2] == 32); /* the built-in item box, coloured by its class */
    int checked = 0;
    for (int i = 0; i < l.scene->entity_count; i++) {
        const al_mesh *m = l.scene->entities[i];
        int e = l.scene->entity_index[i];
        if (e == 2 || m->line_count == 0) continue;
        const al_line_vertex *v = &m->lines[0];
        CHECK_MSG(v->colour[0] == lrintf(looks[e].colour[0] * 255) &&
                      v->colour[1] == lrintf(looks[e].colour[1] * 255) &&
                      v->colour[2] == lrintf(looks[e].colour[2] * 255),
                  "entity %d outline %d %d %d", e, v->colour[0], v->colour[1], v->colour[2]);
        checked++;
    }
    CHECK(checked == 2);
    unload(&l);
}

CHECK_TEST(sample, "/scene/sample-map-picks-match-brute-force")
{
    loaded l;
    REQUIRE(load(&l, getenv("ALLIUM_SAMPLE_MAP")));
    check_picks(&l, 3000, 11);
    /* The sample map is sealed: portals only between vis leaves, no leak drawn. */
    al_scene_stats st;
    al_scene_get_stats(l.scene, &st);
    al_vis_stats vs;
    al_world_vis_stats(l.sc.world, &vs);
    CHECK_MSG(st.portals == vs.portals, "%d portals drawn, %d between vis leaves", st.portals,
              vs.portals);
    CHECK(st.leak_points == 0);
    unload(&l);
}

CHECK_TEST(generated, "/scene/generated-map-picks-match-brute-force")
{
    const char *path = getenv("ALLIUM_GENERATED_MAP");
    if (!path) {
        check_skip("ALLIUM_GENERATED_MAP not set");
        return;
    }
    loaded l;
    REQUIRE(load(&l, path));
    check_picks(&l, 1000, 12);
    unload(&l);
}

CHECK_TEST(real, "/scene/real-maps-picks-match-brute-force")
{
    static const char *names[] = {"e1m1.map", "dm2.map"};
    int found = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *path = scene_shared_map(names[i]);
        if (!path) continue;
        found++;
        loaded l;
        REQUIRE(load(&l, path));
        check_picks(&l, 300, 13 + (unsigned) i);
        unload(&l);
    }
    if (!found) check_skip("no real maps in the shared maps folder");
}


/* Two meshes with the same faces, vertices and bounds. */
static bool same_mesh(const al_mesh *a, const al_mesh *b, char *why, size_t size)
{
    if (!a || !b) {
        snprintf(why, size, "a mesh is missing (%p, %p)", (const void *) a, (const void *) b);
        return a == b;
    }
    if (a->face_count != b->face_count || a->tri_count != b->tri_count ||
        a->line_count != b->line_count || a->radius_count != b->radius_count ||
        a->flags != b->flags) {
        snprintf(why, size, "%d/%d faces, %d/%d triangle vertices", a->face_count, b->face_count,
                 a->tri_count, b->tri_count);
        return false;
    }
    if (memcmp(a->tris, b->tris, (size_t) a->tri_count * sizeof *a->tris) ||
        memcmp(a->lines, b->lines, (size_t) a->line_count * sizeof *a->lines) ||
        (a->radius_count && memcmp(a->radius, b->radius, (size_t) a->radius_count * sizeof *a->radius)) ||
        memcmp(a->mins, b->mins, sizeof a->mins) || memcmp(a->maxs, b->maxs, sizeof a->maxs)) {
        snprintf(why, size, "vertices or bounds differ");
        return false;
    }
    for (int f = 0; f < a->face_count; f++)
        if (a->faces[f].face != b->faces[f].face || a->faces[f].first_tri != b->faces[f].first_tri) {
            snprintf(why, size, "face %d differs", f);
            return false;
        }
    return true;
}

/* Scenes A and B draw the same: mesh by mesh, face numbering, bounds. */
static int scene_differences(const al_scene *a, const al_scene *b, char *why, size_t size)
{
    int d = 0;
    if (a->brush_count != b->brush_count || a->entity_count != b->entity_count ||
        a->face_count != b->face_count) {
        snprintf(why, size, "%d/%d brushes, %d/%d entities, %d/%d faces", a->brush_count,
                 b->brush_count, a->entity_count, b->entity_count, a->face_count, b->face_count);
        return 1;
    }
    char one[160];
    for (int i = 0; i < a->brush_count; i++)
        if (!same_mesh(a->brushes[i], b->brushes[i], one, sizeof one) && d++ == 0)
            snprintf(why, size, "brush %d: %s", i, one);
    for (int i = 0; i < a->entity_count; i++)
        if ((a->entity_index[i] != b->entity_index[i] ||
             !same_mesh(a->entities[i], b->entities[i], one, sizeof one)) &&
            d++ == 0)
            snprintf(why, size, "entity mesh %d: %s", i, one);
    if (memcmp(a->brush_first_face, b->brush_first_face,
               ((size_t) a->brush_count + 1) * sizeof *a->brush_first_face) != 0 && d++ == 0)
        snprintf(why, size, "the faces are numbered otherwise");
    return d;
}

CHECK_TEST(incremental, "/scene/a-scene-built-from-the-one-before-equals-one-built-whole")
{
    const char *path = getenv("ALLIUM_GENERATED_MAP");
    if (!path) {
        check_skip("ALLIUM_GENERATED_MAP not set");
        return;
    }
    scene sc;
    REQUIRE(scene_load_file(&sc, path, NULL));
    al_edit_input e;
    REQUIRE(al_edit_input_init(&e, &sc.input.input));
    /* Ids and versions, as the live engine keeps them: an edited brush gets a new version. */
    int cap = e.input.brush_count + 256;
    int64_t *ids = malloc((size_t) cap * sizeof *ids);
    uint64_t *keys = malloc((size_t) cap * sizeof *keys);
    int64_t *entity_ids = malloc(((size_t) e.input.entity_count + 1) * sizeof *entity_ids);
    uint64_t *entity_keys = calloc((size_t) e.input.entity_count + 1, sizeof *entity_keys);
    REQUIRE(ids && keys && entity_ids && entity_keys);
    for (int b = 0; b < e.input.brush_count; b++) ids[b] = b, keys[b] = 1;
    for (int i = 0; i < e.input.entity_count; i++) entity_ids[i] = i;
    int64_t next_id = e.input.brush_count;
    al_scene_desc d = {.input = &e.input, .brush_ids = ids, .brush_keys = keys,
                       .entity_ids = entity_ids, .entity_keys = entity_keys};
    al_scene *prev = NULL;
    REQUIRE(al_scene_build(&d, &prev) == AL_OK);
    al_rng rng = {77};
    int differ = 0, built_off = 0, picks_off = 0, edits = 40;
    double ms_inc = 0, ms_whole = 0;
    char why[200] = "";
    for (int i = 0; i < edits; i++) {
        al_edit edit;
        int before = e.input.brush_count;
        REQUIRE(al_edit_random(&e, &rng, 8, &edit));
        if (edit.kind == AL_EDIT_DELETE) {
            memmove(&ids[edit.brush], &ids[edit.brush + 1], (size_t) (before - edit.brush - 1) * sizeof *ids);
            memmove(&keys[edit.brush], &keys[edit.brush + 1], (size_t) (before - edit.brush - 1) * sizeof *keys);
        } else {
            REQUIRE(e.input.brush_count < cap);
            if (edit.kind == AL_EDIT_ADD) ids[edit.brush] = next_id++;
            keys[edit.brush] = (uint64_t) i + 2;
        }
        d.input = &e.input;
        d.previous = prev;
        al_scene *inc = NULL, *whole = NULL;
        REQUIRE(al_scene_build(&d, &inc) == AL_OK);
        al_scene_desc fresh = d;
        fresh.previous = NULL;
        REQUIRE(al_scene_build(&fresh, &whole) == AL_OK);
        if (scene_differences(inc, whole, why, sizeof why) && differ++ == 0)
            check_note("edit %d (%s): %s", i, al_edit_kind_name(edit.kind), why);
        al_scene_stats st;
        al_scene_get_stats(inc, &st);
        ms_inc += st.ms_build;
        al_scene_stats wst;
        al_scene_get_stats(whole, &wst);
        ms_whole += wst.ms_build;
        /* Only the edited brush's mesh is built again. */
        int expected = edit.kind == AL_EDIT_DELETE ? 0 : 1;
        if (st.meshes_built > expected && built_off++ == 0)
            check_note("edit %d (%s) built %d meshes", i, al_edit_kind_name(edit.kind), st.meshes_built);
        /* The picking tree (refitted after moves and resizes) against the scan. */
        double mn[3], mx[3];
        REQUIRE(al_scene_bounds(inc, mn, mx));
        for (int r = 0; r < 50; r++) {
            double o[3], dir[3], len = 0;
            for (int k = 0; k < 3; k++) {
                o[k] = mn[k] + (mx[k] - mn[k]) * al_rng_uniform(&rng);
                dir[k] = al_rng_uniform(&rng) - 0.5;
                len += dir[k] * dir[k];
            }
            for (int k = 0; k < 3; k++) dir[k] /= sqrt(len);
            al_pick a, b;
            bool ha = al_scene_pick(inc, o, dir, 0, &a),
                 hb = al_scene_pick_scan(inc, o, dir, 0, NULL, &b);
            picks_off += ha != hb || (ha && (a.brush != b.brush || a.face != b.face || a.t != b.t));
        }
        al_scene_destroy(whole);
        al_scene_destroy(prev);
        prev = inc;
    }
    CHECK_MSG(differ == 0, "%d of %d scenes built from the one before differ from whole ones",
              differ, edits);
    CHECK_MSG(built_off == 0, "%d edits built more meshes than they changed", built_off);
    CHECK_MSG(picks_off == 0, "%d picks of the kept or refitted tree differ from the scan", picks_off);
    check_note("%d edits of %d brushes: %.2f ms a scene from the one before, %.2f ms whole", edits,
               e.input.brush_count, ms_inc / edits, ms_whole / edits);
    al_scene_destroy(prev);
    free(ids), free(keys), free(entity_ids), free(entity_keys);
    al_edit_input_free(&e);
    scene_free(&sc);
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}

CHECK_TEST(texture_coordinates, "/scene/face-vertices-carry-their-projection-and-material")
{
    /* Every vertex of a textured face has its face's projection (al_face_desc.texture_axes,
     * checked against the closed form in test-map-read) at its position and its material
     * + 1; tool faces and lines carry material 0. A 64 unit box, its top a standard face
     * turned 90 degrees at half scale: there u = 2 y + 8 and v = 2 x + 4 (closed form). */
    static const char *text = "{\n\"classname\" \"worldspawn\"\n{\n"
                              "( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) stone 0 0 0 1 1\n"
                              "( 64 0 0 ) ( 64 0 1 ) ( 64 1 0 ) stone 16 0 0 1 1\n"
                              "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) stone 0 0 0 1 1\n"
                              "( 0 64 0 ) ( 1 64 0 ) ( 0 64 1 ) stone 0 0 30 2 1\n"
                              "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) clip 0 0 0 1 1\n"
                              "( 0 0 64 ) ( 0 1 64 ) ( 1 0 64 ) brick 8 4 90 0.5 0.5\n}\n}\n";
    loaded l;
    memset(&l, 0, sizeof l);
    REQUIRE(scene_load_text(&l.sc, text, strlen(text), NULL));
    al_scene_desc d = {.input = &l.sc.input.input};
    REQUIRE(al_scene_build(&d, &l.scene) == AL_OK);
    const al_input *in = &l.sc.input.input;
    const al_mesh *m = l.scene->brushes[0];
    REQUIRE(m && m->face_count == 6);
    REQUIRE(l.scene->material_count == in->material_count);
    int textured = 0, worst_face = -1;
    double worst = 0;
    for (int i = 0; i < m->face_count; i++) {
        const al_mesh_face *mf = &m->faces[i];
        const al_face_desc *fd = &in->faces[in->brushes[0].first_face + mf->face];
        bool tool = mf->flags & AL_FACE_TOOL;
        for (int k = 0; k < mf->tri_count; k++) {
            const al_vertex *v = &m->tris[mf->first_tri + k];
            CHECK(v->material == (tool ? 0 : fd->material + 1));
            if (tool) continue;
            for (int a = 0; a < 2; a++) {
                double want = v->pos[0] * fd->texture_axes[a][0] +
                              v->pos[1] * fd->texture_axes[a][1] +
                              v->pos[2] * fd->texture_axes[a][2] + fd->texture_axes[a][3];
                if (fabs(want - v->texture[a]) > worst)
                    worst = fabs(want - v->texture[a]), worst_face = i;
            }
            if (mf->face == 5) {
                CHECK_NEAR(v->texture[0], 2 * v->pos[1] + 8, 1e-4);
                CHECK_NEAR(v->texture[1], 2 * v->pos[0] + 4, 1e-4);
                CHECK(strcmp(l.scene->material_names[v->material - 1], "brick") == 0);
            }
            textured++;
        }
    }
    check_note("%d textured vertices, worst difference %.3g texels (face %d)", textured, worst,
               worst_face);
    CHECK(textured == 5 * 6 && worst < 1e-4);
    al_scene_destroy(l.scene);
    scene_free(&l.sc);
}
