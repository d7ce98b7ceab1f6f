/* Quake BSP export, read back by the tests' own reader (bsp-reader.c, apart from the
 * writer): the file's lumps and indices are sound, and Quake's point contents walk
 * (SV_HullPointContents) over the exported trees answers as the compiled world does at
 * random points (hull 0 against al_world_point_contents of the point hull, with liquids;
 * hulls 1 and 2 against al_world_point_solid of stand and large; every solid model
 * counted), skipping points within 0.01 of a plane on the way (where floats decide). Every
 * face lies on its plane, the models' bounds hold their faces, the entities name their
 * models. On small scenes, the generated maps and real maps (skipped visibly when
 * absent), in BSP29 and BSP2; BSP29's limits refuse a map that passes them, naming the
 * limit. */
#include "bsp-reader.h"
#include "check.h"
#include "al-faces.h"
#include "export/bsp.h"
#include "mapgen.h"
#include "scene.h"
#include "textures/wad-write.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng_state;

static double uniform01(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double) (rng_state >> 11) / 9007199254740992.0;
}

/* al_bsp_build's .bsp bytes alone (what these tests read) into *DATA and *SIZE. */
static al_status build(const al_bsp_source *src, al_bsp_format format, void **data, size_t *size,
                       al_bsp_counts *counts, al_diag_list *diags)
{
    al_bsp_files files;
    al_status st = al_bsp_build(src, format, &files, counts, diags);
    *data = files.bsp;
    *size = files.bsp_size;
    free(files.lit);
    return st;
}

static int quake_contents(al_contents c)
{
    switch (c) {
    case AL_CONTENTS_SOLID:
        return -2;
    case AL_CONTENTS_WATER:
        return -3;
    case AL_CONTENTS_SLIME:
        return -4;
    case AL_CONTENTS_LAVA:
        return -5;
    default:
        return -1;
    }
}

/* Quake's contents at P in HULL over every model (a solid model's solid wins over the
 * world's contents, as the world's query counts brush models), each model placed at its
 * entity's origin (ORIGINS, per model), with the nearest plane on the way in *NEAREST. */
static int contents_all(const rb_bsp *b, const double (*origins)[3], int hull, const double p[3],
                        double *nearest)
{
    double near;
    int c = rb_point_contents(b, 0, hull, p, nearest);
    for (int m = 1; m < b->model_count; m++) {
        const rb_model *md = &b->models[m];
        double local[3];
        bool inside = true;
        for (int k = 0; k < 3; k++) {
            local[k] = p[k] - origins[m][k];
            inside = inside && local[k] >= md->mins[k] - 80 && local[k] <= md->maxs[k] + 100;
        }
        if (!inside) continue; /* a model's hulls are empty beyond its box grown by a hull */
        if (rb_point_contents(b, m, hull, local, &near) == -2) c = -2;
        if (near < *nearest) *nearest = near;
    }
    return c;
}

typedef struct export_report {
    int samples, skipped, mismatches[3];
    char why[300];
} export_report;

/* Exports S in FORMAT, reads it back and checks it (see the file comment) at SAMPLES random
 * points of the world's bounds. */
static void check_export(const scene *s, al_bsp_format format, int samples, const char *name)
{
    al_bsp_source src = {s->map, &s->input.input, s->world, NULL};
    void *data = NULL;
    size_t size = 0;
    al_bsp_counts counts;
    al_diag_list diags = {0};
    al_status st = build(&src, format, &data, &size, &counts, &diags);
    REQUIRE_MSG(st == AL_OK, "%s: export failed: %s (%s)", name, al_status_message(st),
                diags.count ? diags.items[diags.count - 1].message : "");
    al_diag_list_clear(&diags);
    rb_bsp b;
    char why[300];
    bool read = rb_read(data, size, &b, why, sizeof why);
    free(data);
    REQUIRE_MSG(read, "%s: the reader refuses the export: %s", name, why);
    CHECK(b.bsp2 == (format == AL_BSP2));
    CHECK(b.model_count == counts.models && b.clipnode_count == counts.clipnodes &&
          b.face_count == counts.faces && b.leaf_count == counts.leafs);

    /* Point contents. */
    const al_world *w = s->world;
    int hull[3] = {0, al_world_find_hull(w, "stand"), al_world_find_hull(w, "large")};
    REQUIRE(hull[1] > 0 && hull[2] > 0);
    double lo[3], hi[3];
    al_world_bounds(w, lo, hi);
    double (*origins)[3] = calloc((size_t) b.model_count, sizeof *origins);
    REQUIRE(origins);
    for (int m = 1; m < b.model_count; m++) rb_model_origin(&b, m, origins[m]);
    export_report r = {0};
    rng_state = 12345;
    for (int i = 0; i < samples; i++) {
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = lo[k] + (hi[k] - lo[k]) * uniform01();
        for (int h = 0; h < 3; h++) {
            double nearest;
            int got = contents_all(&b, (const double (*)[3]) origins, h, p, &nearest);
            if (nearest < 0.01) {
                r.skipped++;
                continue;
            }
            r.samples++;
            int want = h == 0 ? quake_contents(al_world_point_contents(w, 0, p))
                              : (al_world_point_solid(w, hull[h], p) ? -2 : -1);
            if (got != want && r.mismatches[h]++ == 0 && !r.why[0])
                snprintf(r.why, sizeof r.why,
                         "hull %d at %.3f %.3f %.3f: the .bsp says %d, the "
                         "world %d (nearest plane %.4f)",
                         h, p[0], p[1], p[2], got, want, nearest);
        }
    }
    check_note("%s %s: %d samples (%d on planes skipped), mismatches %d %d %d; %d nodes, %d "
               "leafs, %d clipnodes, %d faces, %d models",
               name, al_bsp_format_name(format), r.samples, r.skipped, r.mismatches[0],
               r.mismatches[1], r.mismatches[2], b.node_count, b.leaf_count, b.clipnode_count,
               b.face_count, b.model_count);
    CHECK_MSG(r.mismatches[0] + r.mismatches[1] + r.mismatches[2] == 0, "%s: %s", name, r.why);
    CHECK(r.samples > samples); /* the planes did not swallow the test */

    /* BRUSHLIST: every brush is one of the map's (its bounds and non-axial planes, less its
     * model's origin), and at random points the brushes (each model placed at its origin;
     * solid ones first, then the first liquid one) give the world's point-hull contents. */
    REQUIRE_MSG(b.brushes, "%s: no BRUSHLIST", name);
    al_face_polys polys;
    REQUIRE(al_face_polys_build(&s->input.input, &polys) == AL_OK);
    int unmatched = 0;
    for (int i = 0; i < b.brush_count; i++) {
        const rb_brush *br = &b.brushes[i];
        const double *o = origins[br->model];
        bool matched = false;
        for (int k = 0; k < polys.brush_count && !matched; k++) {
            if (polys.brush_first[k] == polys.brush_first[k + 1]) continue;
            bool same = true;
            for (int a = 0; a < 3; a++)
                same = same && br->mins[a] == (float) (polys.brush_mins[k][a] - o[a]) &&
                       br->maxs[a] == (float) (polys.brush_maxs[k][a] - o[a]);
            int planes = 0;
            for (int f = polys.brush_first[k]; same && f < polys.brush_first[k + 1]; f++) {
                const al_face_poly *fp = &polys.faces[f];
                int zero = (fp->normal[0] == 0) + (fp->normal[1] == 0) + (fp->normal[2] == 0);
                if (zero == 2) continue;
                planes++;
                double d =
                    fp->dist - fp->normal[0] * o[0] - fp->normal[1] * o[1] - fp->normal[2] * o[2];
                bool found = false;
                for (int j = 0; j < br->plane_count && !found; j++) {
                    const float *pl = b.brush_planes[br->first_plane + j];
                    found = fabs(pl[0] - fp->normal[0]) < 1e-6 &&
                            fabs(pl[1] - fp->normal[1]) < 1e-6 &&
                            fabs(pl[2] - fp->normal[2]) < 1e-6 && fabs(pl[3] - d) < 1e-3;
                }
                same = found;
            }
            matched = same && planes == br->plane_count;
        }
        unmatched += !matched;
    }
    al_face_polys_free(&polys);
    int list_samples = 0, list_wrong = 0;
    char list_why[300] = "";
    rng_state = 777;
    for (int i = 0; i < samples; i++) {
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = lo[k] + (hi[k] - lo[k]) * uniform01();
        int got = -1, liquid = -1;
        double nearest = INFINITY;
        for (int j = 0; j < b.brush_count; j++) {
            const rb_brush *br = &b.brushes[j];
            double x[3], margin = INFINITY; /* how far inside (< 0: outside) */
            for (int a = 0; a < 3; a++) {
                x[a] = p[a] - origins[br->model][a];
                margin = fmin(margin, fmin(x[a] - br->mins[a], br->maxs[a] - x[a]));
            }
            if (margin < -0.01) continue;
            for (int f = 0; f < br->plane_count; f++) {
                const float *pl = b.brush_planes[br->first_plane + f];
                margin = fmin(margin, pl[3] - (pl[0] * x[0] + pl[1] * x[1] + pl[2] * x[2]));
            }
            nearest = fmin(nearest, fabs(margin));
            if (margin <= 0) continue;
            if (br->contents == -2)
                got = -2;
            else if (liquid == -1)
                liquid = br->contents;
        }
        if (nearest < 0.01) continue;
        if (got != -2) got = liquid;
        list_samples++;
        int want = quake_contents(al_world_point_contents(w, 0, p));
        if (got != want && list_wrong++ == 0)
            snprintf(list_why, sizeof list_why,
                     "at %.3f %.3f %.3f the brushes say %d, the world %d", p[0], p[1], p[2], got,
                     want);
    }
    check_note("%s %s: BRUSHLIST of %d brushes (%d planes), %d not the map's; %d samples, %d "
               "mismatches",
               name, al_bsp_format_name(format), b.brush_count, b.brush_plane_count, unmatched,
               list_samples, list_wrong);
    CHECK_MSG(unmatched == 0, "%s: %d BRUSHLIST brushes are not the map's", name, unmatched);
    CHECK_MSG(list_wrong == 0, "%s: BRUSHLIST %s", name, list_why);
    CHECK(list_samples > samples / 2);

    /* Visibility: points in vis leaves that see each other lie in leaves whose rows say
     * so. Up to 300 points in vis leaves (and in empty leaves of the .bsp), every pair. */
    enum { POINTS = 300 };
    double (*pts)[3] = malloc(POINTS * sizeof *pts);
    int *vis = malloc(POINTS * sizeof *vis), *leaf = malloc(POINTS * sizeof *leaf);
    REQUIRE(pts && vis && leaf);
    int n = 0;
    for (int tries = 0; tries < 200 * POINTS && n < POINTS; tries++) {
        double *p = pts[n];
        for (int k = 0; k < 3; k++) p[k] = lo[k] + (hi[k] - lo[k]) * uniform01();
        vis[n] = al_world_vis_leaf_at(w, p);
        double nearest;
        if (vis[n] < 0 || rb_point_contents(&b, 0, 0, p, &nearest) == -2 || nearest < 0.01)
            continue;
        leaf[n] = rb_point_leaf(&b, 0, p);
        n += leaf[n] > 0 && leaf[n] <= b.models[0].visleafs;
    }
    int pairs = 0, missing = 0, hidden = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (!al_world_leaf_sees(w, vis[i], vis[j])) {
                hidden += !rb_leaf_sees(&b, leaf[i], leaf[j]);
                continue;
            }
            pairs++;
            if (!rb_leaf_sees(&b, leaf[i], leaf[j]) && missing++ == 0)
                check_fail(__FILE__, __LINE__,
                           "%s: leaf %d (%.1f %.1f %.1f, vis leaf %d) does not see leaf %d "
                           "(%.1f %.1f %.1f, vis leaf %d), which the PVS says it does",
                           name, leaf[i], pts[i][0], pts[i][1], pts[i][2], vis[i], leaf[j],
                           pts[j][0], pts[j][1], pts[j][2], vis[j]);
        }
    check_note("%s: %d points in vis leaves, %d visible pairs (%d missing from the rows), "
               "%d of the hidden pairs hidden in the rows too; %zu bytes of visibility",
               name, n, pairs, missing, hidden, b.visibility_bytes);
    CHECK(missing == 0);
    free(pts);
    free(vis);
    free(leaf);

    /* Faces on their planes, inside their model's bounds. */
    int off_plane = 0, outside = 0;
    for (int m = 0; m < b.model_count; m++) {
        const rb_model *md = &b.models[m];
        for (int k = 0; k < 3; k++) CHECK(md->mins[k] <= md->maxs[k] || md->face_count == 0);
        for (int f = md->first_face; f < md->first_face + md->face_count; f++) {
            const rb_face *face = &b.faces[f];
            const rb_plane *pl = &b.planes[face->plane];
            for (int e = 0; e < face->edge_count; e++) {
                int32_t se = b.surfedges[face->first_edge + e];
                const float *v = b.vertexes[se >= 0 ? b.edges[se][0] : b.edges[-se][1]];
                double d =
                    pl->normal[0] * v[0] + pl->normal[1] * v[1] + pl->normal[2] * v[2] - pl->dist;
                off_plane += fabs(d) > 0.02;
                for (int k = 0; k < 3; k++)
                    outside += v[k] < md->mins[k] - 0.02 || v[k] > md->maxs[k] + 0.02;
            }
            /* Consecutive edges meet: edge i's end is edge i+1's start. */
            for (int e = 0; e < face->edge_count; e++) {
                int32_t a = b.surfedges[face->first_edge + e];
                int32_t c = b.surfedges[face->first_edge + (e + 1) % face->edge_count];
                uint32_t end = a >= 0 ? b.edges[a][1] : b.edges[-a][0];
                uint32_t start = c >= 0 ? b.edges[c][0] : b.edges[-c][1];
                CHECK_MSG(end == start, "%s: face %d's edges do not join", name, f);
                if (end != start) break;
            }
        }
    }
    CHECK_MSG(off_plane == 0, "%s: %d face vertexes off their plane", name, off_plane);
    CHECK_MSG(outside == 0, "%s: %d face vertexes outside their model's bounds", name, outside);

    /* No hidden faces: each face has space in front of it (not solid in its own model's
     * hull 0, read from the .bsp's trees) at one of its sample points at least: its centre,
     * and points a tenth and half way from each vertex and edge middle to the centre, 0.05
     * units out. Points within 0.001 of a plane on the walk do not count. */
    int buried = 0;
    double area = 0;
    for (int m = 0; m < b.model_count; m++) {
        const rb_model *md = &b.models[m];
        for (int f = md->first_face; f < md->first_face + md->face_count; f++) {
            const rb_face *face = &b.faces[f];
            const rb_plane *pl = &b.planes[face->plane];
            double sign = face->side ? -1 : 1, c[3] = {0, 0, 0}, v[64][3];
            int nv = face->edge_count < 64 ? face->edge_count : 64;
            for (int e = 0; e < nv; e++) {
                int32_t se = b.surfedges[face->first_edge + e];
                const float *x = b.vertexes[se >= 0 ? b.edges[se][0] : b.edges[-se][1]];
                for (int k = 0; k < 3; k++) v[e][k] = x[k], c[k] += x[k] / nv;
            }
            for (int e = 1; e + 1 < nv; e++) {
                double a1[3], a2[3];
                for (int k = 0; k < 3; k++)
                    a1[k] = v[e][k] - v[0][k], a2[k] = v[e + 1][k] - v[0][k];
                double cx = a1[1] * a2[2] - a1[2] * a2[1], cy = a1[2] * a2[0] - a1[0] * a2[2],
                       cz = a1[0] * a2[1] - a1[1] * a2[0];
                area += 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
            }
            /* Sample I: the centre (-1), else from vertex I / 4 (I % 4 < 2) or the middle
             * of its edge to the next, a tenth (even I) or half (odd I) way to the centre. */
            bool open = false;
            for (int i = -1; i < 4 * nv && !open; i++) {
                double from[3], at[3];
                const double *x = i < 0 ? c : v[i / 4], *y = i < 0 ? c : v[(i / 4 + 1) % nv];
                bool edge = i >= 0 && i % 4 >= 2;
                for (int k = 0; k < 3; k++) from[k] = edge ? 0.5 * (x[k] + y[k]) : x[k];
                double t = i < 0 ? 1 : i % 2 == 0 ? 0.1 : 0.5;
                for (int k = 0; k < 3; k++)
                    at[k] = from[k] + t * (c[k] - from[k]) + 0.05 * sign * pl->normal[k];
                double nearest;
                open = rb_point_contents(&b, m, 0, at, &nearest) != -2 && nearest >= 0.001;
            }
            buried += !open;
            if (!open && buried <= 3)
                check_note("%s: face %d of model %d (centre %.2f %.2f %.2f) has solid in front "
                           "of all its sample points",
                           name, f, m, c[0], c[1], c[2]);
        }
    }
    check_note("%s %s: %d faces, %.0f square units; %d without open space in front", name,
               al_bsp_format_name(format), b.face_count, area, buried);
    CHECK_MSG(buried == 0, "%s: %d faces are hidden inside their model's solid", name, buried);

    free(origins);

    /* Every model but the world is named by one entity. */
    for (int m = 1; m < b.model_count; m++) {
        char key[40];
        snprintf(key, sizeof key, "\"model\" \"*%d\"\n", m);
        const char *at = strstr(b.entities, key);
        CHECK_MSG(at && !strstr(at + 1, key), "%s: model *%d is named %s", name, m,
                  at ? "twice" : "by no entity");
    }
    CHECK(strstr(b.entities, "\"classname\" \"worldspawn\""));
    rb_free(&b);
}

/* Scenes are compiled with the tight PVS, which the visibility rows are made from. */
static const scene_options with_pvs = {.pvs = true, .pvs_level = AL_PVS_TIGHT};

static void check_both(const scene *s, int samples, const char *name)
{
    check_export(s, AL_BSP29, samples, name);
    check_export(s, AL_BSP2, samples, name);
}

/* A room with a pool of each liquid, a door, a rotating-free platform and a trigger. */
static mapgen *room_map(double shift)
{
    mapgen *g = mapgen_create(false);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_room(g, shift, 0, 0, shift + 512, 512, 256, 16, "wall1");
    mapgen_box(g, shift + 32, 32, 0, shift + 160, 160, 48, "*water0");
    mapgen_box(g, shift + 200, 32, 0, shift + 280, 112, 40, "*slime0");
    mapgen_box(g, shift + 32, 300, 0, shift + 120, 400, 24, "*lava1");
    /* Two water brushes that overlap, one with a slanted face. */
    const double wedge[5][3][3] = {
        {{shift + 300, 300, 0}, {shift + 400, 300, 0}, {shift + 300, 400, 0}},
        {{shift + 300, 300, 0}, {shift + 300, 400, 0}, {shift + 300, 300, 64}},
        {{shift + 300, 300, 0}, {shift + 300, 300, 64}, {shift + 400, 300, 0}},
        {{shift + 400, 300, 0}, {shift + 300, 400, 0}, {shift + 400, 300, 64}},
        {{shift + 300, 300, 64}, {shift + 300, 400, 64}, {shift + 400, 300, 64}},
    };
    mapgen_brush(g, 5, wedge, "*water1");
    mapgen_box(g, shift + 340, 340, 0, shift + 420, 420, 32, "*water0");
    mapgen_box(g, shift + 200, 200, 0, shift + 260, 260, 96, "crate");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_door");
    mapgen_box(g, shift + 450, 100, 0, shift + 466, 200, 112, "door1");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_plat");
    mapgen_box(g, shift + 420, 300, 0, shift + 480, 360, 8, "plat");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "trigger_multiple");
    mapgen_box(g, shift + 100, 200, 0, shift + 180, 260, 64, "trigger");
    mapgen_end_entity(g);
    mapgen_begin_entity(g, "func_detail");
    mapgen_box(g, shift + 150, 400, 0, shift + 190, 440, 70, "detail");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", shift + 256, 256, 24);
    mapgen_light(g, shift + 256, 256, 200, "400");
    return g;
}

/* The room with a rotating blade (Hipnotic's rotate_object) whose origin brush, above the
 * blade and off the unit grid in x, sets its origin at 367.5 188 154. */
static mapgen *rotating_map(void)
{
    mapgen *g = room_map(0);
    mapgen_begin_entity(g, "rotate_object");
    mapgen_box(g, 330, 180, 40, 410, 196, 140, "door1");
    mapgen_box(g, 364, 184, 150, 371, 192, 158, "origin");
    mapgen_end_entity(g);
    return g;
}

CHECK_TEST(room, "/export/bsp/room-contents-equal-the-world-in-every-hull")
{
    scene s = {0};
    REQUIRE(scene_load_mapgen(&s, room_map(0), &with_pvs));
    check_both(&s, 20000, "room");
    scene_free(&s);
}

CHECK_TEST(entities, "/export/bsp/brush-entities-get-models-and-groups-merge-into-the-world")
{
    scene s = {0};
    REQUIRE(scene_load_mapgen(&s, room_map(0), &with_pvs));
    al_bsp_source src = {s.map, &s.input.input, s.world, NULL};
    void *data;
    size_t size;
    al_bsp_counts c;
    REQUIRE(build(&src, AL_BSP29, &data, &size, &c, NULL) == AL_OK);
    rb_bsp b;
    char why[200];
    REQUIRE_MSG(rb_read(data, size, &b, why, sizeof why), "%s", why);
    free(data);
    /* The world, the door, the platform and the trigger; func_detail is the world's. */
    CHECK(b.model_count == 4);
    CHECK(!strstr(b.entities, "func_detail"));
    CHECK(strstr(b.entities, "\"classname\" \"trigger_multiple\"\n\"model\" \"*3\""));
    /* The trigger's model has its faces and its box, and nothing solid. */
    const rb_model *t = &b.models[3];
    CHECK(t->face_count == 6);
    CHECK_NEAR(t->mins[0], 100, 1e-6);
    CHECK_NEAR(t->maxs[2], 64, 1e-6);
    CHECK(rb_point_contents(&b, 3, 0, (const double[3]){140, 230, 30}, NULL) == -1);
    CHECK(rb_point_contents(&b, 3, 1, (const double[3]){140, 230, 30}, NULL) == -1);
    /* The door is solid in all three hulls at its centre. */
    for (int h = 0; h < 3; h++)
        CHECK(rb_point_contents(&b, 1, h, (const double[3]){458, 150, 56}, NULL) == -2);
    /* No texture source: every texture is a checker, and said so. */
    CHECK(c.miptex_missing == c.miptex && c.miptex == b.miptex_count);
    /* No radiosity, no lighting (fullbright). Visibility is, for the world's leaves only. */
    CHECK(b.lighting_bytes == 0 && b.visibility_bytes > 0);
    CHECK(b.leafs[0].visofs == -1);
    for (int l = b.models[0].visleafs + 1; l < b.leaf_count; l++) CHECK(b.leafs[l].visofs == -1);
    rb_free(&b);
    scene_free(&s);
}

/* An origin brush places its entity's model: the model is written relative to the brush's
 * centre, which the entity gets as its "origin"; the brush itself has no faces and no
 * solid, and the model's bounds leave it out. Point contents everywhere (check_both, each
 * model placed at its origin) equal the world's. */
CHECK_TEST(origin, "/export/bsp/an-origin-brush-places-its-entitys-model")
{
    scene s = {0};
    REQUIRE(scene_load_mapgen(&s, rotating_map(), &with_pvs));
    check_both(&s, 20000, "rotating");
    const double centre[3] = {367.5, 188, 154};
    CHECK(!al_world_point_solid(s.world, 0, (const double[3]){367.5, 188, 157}));
    al_bsp_source src = {s.map, &s.input.input, s.world, NULL};
    void *data;
    size_t size;
    REQUIRE(build(&src, AL_BSP29, &data, &size, NULL, NULL) == AL_OK);
    rb_bsp b;
    char why[200];
    REQUIRE_MSG(rb_read(data, size, &b, why, sizeof why), "%s", why);
    free(data);
    /* World, door, platform, blade (the solid models), then the trigger. */
    REQUIRE(b.model_count == 5);
    CHECK(strstr(b.entities, "\"classname\" \"rotate_object\"\n\"model\" \"*3\"\n"
                             "\"origin\" \"367.5 188 154\"\n}"));
    double o[3];
    CHECK(rb_model_origin(&b, 3, o) && o[0] == centre[0] && o[1] == centre[1] && o[2] == centre[2]);
    CHECK(!rb_model_origin(&b, 1, o) && o[0] == 0 && o[1] == 0 && o[2] == 0);
    /* The blade's bounds less the origin; its six faces, not the origin brush's. */
    const rb_model *m = &b.models[3];
    const double mins[3] = {330, 180, 40}, maxs[3] = {410, 196, 140};
    for (int k = 0; k < 3; k++) {
        CHECK(m->mins[k] == (float) (mins[k] - centre[k]));
        CHECK(m->maxs[k] == (float) (maxs[k] - centre[k]));
    }
    CHECK(m->face_count == 6);
    /* Solid in every hull at the blade's centre (model coordinates), empty at the origin
     * brush's, and empty there in the world too. */
    for (int h = 0; h < 3; h++) {
        CHECK(rb_point_contents(&b, 3, h, (const double[3]){2.5, 0, -64}, NULL) == -2);
        CHECK(rb_point_contents(&b, 3, 0, (const double[3]){0, 0, 3}, NULL) == -1);
        CHECK(rb_point_contents(&b, 0, h, (const double[3]){367.5, 188, 157}, NULL) == -1);
    }
    /* A texture stays where the map put it: a vertex's texture coordinates in the model
     * equal those of its place in the world under the map's axes (the blade's front face,
     * y = 180, has the map's default axes x and -z, scale 1). */
    int checked = 0;
    for (int f = m->first_face; f < m->first_face + m->face_count; f++) {
        const rb_face *face = &b.faces[f];
        const rb_plane *pl = &b.planes[face->plane];
        if (pl->normal[1] != 1 || pl->dist != (float) (180 - centre[1])) continue;
        const rb_texinfo *t = &b.texinfo[face->texinfo];
        for (int e = 0; e < face->edge_count; e++) {
            int32_t se = b.surfedges[face->first_edge + e];
            const float *v = b.vertexes[se >= 0 ? b.edges[se][0] : b.edges[-se][1]];
            double world[3] = {v[0] + centre[0], v[1] + centre[1], v[2] + centre[2]};
            double su =
                t->vecs[0][0] * v[0] + t->vecs[0][1] * v[1] + t->vecs[0][2] * v[2] + t->vecs[0][3];
            double tv =
                t->vecs[1][0] * v[0] + t->vecs[1][1] * v[1] + t->vecs[1][2] * v[2] + t->vecs[1][3];
            CHECK_NEAR(su, world[0], 1e-3);
            CHECK_NEAR(tv, -world[2], 1e-3);
            checked++;
        }
    }
    CHECK(checked == 4);
    rb_free(&b);
    scene_free(&s);
}

CHECK_TEST(limit, "/export/bsp/bsp29-refuses-bounds-past-16-bits-and-bsp2-takes-them")
{
    scene s = {0};
    REQUIRE(scene_load_mapgen(&s, room_map(40000), &with_pvs));
    al_bsp_source src = {s.map, &s.input.input, s.world, NULL};
    void *data = NULL;
    size_t size = 0;
    al_diag_list d = {0};
    CHECK(build(&src, AL_BSP29, &data, &size, NULL, &d) == AL_ERR_LIMIT);
    CHECK(data == NULL);
    bool named = false;
    for (size_t i = 0; i < d.count; i++)
        named |= d.items[i].severity == AL_SEVERITY_ERROR && strstr(d.items[i].message, "16-bit") &&
                 strstr(d.items[i].message, "bsp2");
    CHECK_MSG(named, "no error names the 16-bit bounds and BSP2");
    al_diag_list_clear(&d);
    /* The written file is never left half made: a refused export writes nothing. */
    char path[] = "/tmp/allium-test-bsp-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, "keep", 4) == 4);
    close(fd);
    CHECK(al_bsp_write(&src, AL_BSP29, path, NULL, &d) == AL_ERR_LIMIT);
    FILE *f = fopen(path, "rb");
    char kept[8] = "";
    CHECK(f && fread(kept, 1, sizeof kept, f) == 4 && memcmp(kept, "keep", 4) == 0);
    if (f) fclose(f);
    unlink(path);
    al_diag_list_clear(&d);
    check_export(&s, AL_BSP2, 5000, "room at x 40000");
    scene_free(&s);
}

CHECK_TEST(hulls, "/export/bsp/a-hull-that-is-not-quakes-warns-and-a-missing-one-fails")
{
    const char *text = "{\n\"classname\" \"worldspawn\"\n\"allium_hulls\" \"point 0 0 0 0 0 0; "
                       "stand -16 -16 -24 16 16 40; large -32 -32 -24 32 32 64\"\n"
                       "{\n( 0 0 0 ) ( 0 1 0 ) ( 0 0 1 ) a 0 0 0 1 1\n"
                       "( 64 0 0 ) ( 64 0 1 ) ( 64 1 0 ) a 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 0 0 1 ) ( 1 0 0 ) a 0 0 0 1 1\n"
                       "( 0 64 0 ) ( 1 64 0 ) ( 0 64 1 ) a 0 0 0 1 1\n"
                       "( 0 0 0 ) ( 1 0 0 ) ( 0 1 0 ) a 0 0 0 1 1\n"
                       "( 0 0 64 ) ( 0 1 64 ) ( 1 0 64 ) a 0 0 0 1 1\n}\n}\n";
    scene s = {0};
    REQUIRE(scene_load_text(&s, text, strlen(text), NULL));
    al_bsp_source src = {s.map, &s.input.input, s.world, NULL};
    void *data = NULL;
    size_t size;
    al_diag_list d = {0};
    CHECK(build(&src, AL_BSP29, &data, &size, NULL, &d) == AL_OK);
    free(data);
    bool warned = false;
    for (size_t i = 0; i < d.count; i++)
        warned |= d.items[i].severity == AL_SEVERITY_WARNING &&
                  strstr(d.items[i].message, "\"stand\"") &&
                  strstr(d.items[i].message, "not Quake's hull 1");
    CHECK_MSG(warned, "no warning about the stand hull's height");
    al_diag_list_clear(&d);
    scene_free(&s);

    const char *no_large = "{\n\"classname\" \"worldspawn\"\n\"allium_hulls\" \"point 0 0 0 0 0 0; "
                           "stand -16 -16 -24 16 16 32\"\n}\n";
    REQUIRE(scene_load_text(&s, no_large, strlen(no_large), NULL));
    src = (al_bsp_source){s.map, &s.input.input, s.world, NULL};
    data = NULL;
    CHECK(build(&src, AL_BSP29, &data, &size, NULL, &d) == AL_ERR_INVALID_ARGUMENT);
    CHECK(data == NULL);
    CHECK(d.count > 0 && strstr(d.items[d.count - 1].message, "\"large\""));
    al_diag_list_clear(&d);
    scene_free(&s);
}

CHECK_TEST(miptex, "/export/bsp/wad2-textures-are-copied-and-missing-ones-are-checkers")
{
    uint8_t pixels[32 * 16];
    for (int i = 0; i < 32 * 16; i++) pixels[i] = (uint8_t) (i * 7 + 3);
    al_wad_texture_desc t = {"wall1", 32, 16, pixels, NULL};
    size_t wad_size;
    uint8_t *wad = al_wad_write(2, &t, 1, NULL, &wad_size);
    REQUIRE(wad);
    al_wad *read = NULL;
    REQUIRE(al_wad_read(wad, wad_size, "test.wad", NULL, &read, NULL) == AL_OK);
    free(wad);
    al_texture_sources sources = {&read, NULL, 1};
    scene s = {0};
    REQUIRE(scene_load_mapgen(&s, room_map(0), &with_pvs));
    al_bsp_source src = {s.map, &s.input.input, s.world, &sources};
    void *data;
    size_t size;
    al_bsp_counts c;
    al_diag_list d = {0};
    REQUIRE(build(&src, AL_BSP2, &data, &size, &c, &d) == AL_OK);
    CHECK(c.miptex_missing == c.miptex - 1);
    bool named = false;
    for (size_t i = 0; i < d.count; i++) named |= strstr(d.items[i].message, "\"crate\"") != NULL;
    CHECK_MSG(named, "no warning names the missing texture crate");
    /* Find wall1 in the textures lump and compare its first level with the WAD's. */
    rb_bsp b;
    char why[200];
    REQUIRE_MSG(rb_read(data, size, &b, why, sizeof why), "%s", why);
    const uint8_t *bytes = data;
    uint32_t lump = bytes[4 + 8 * 2] | bytes[5 + 8 * 2] << 8 | bytes[6 + 8 * 2] << 16 |
                    (uint32_t) bytes[7 + 8 * 2] << 24;
    bool found = false;
    for (int i = 0; i < b.miptex_count; i++) {
        const uint8_t *o = bytes + lump + 4 + 4 * i;
        uint32_t at = lump + (o[0] | o[1] << 8 | o[2] << 16 | (uint32_t) o[3] << 24);
        if (strcmp((const char *) bytes + at, "wall1") != 0) continue;
        found = true;
        CHECK(bytes[at + 16] == 32 && bytes[at + 20] == 16);
        uint32_t level0 = bytes[at + 24] | bytes[at + 25] << 8;
        CHECK(memcmp(bytes + at + level0, pixels, sizeof pixels) == 0);
    }
    CHECK(found);
    rb_free(&b);
    free(data);
    al_diag_list_clear(&d);
    al_wad_free(read);
    scene_free(&s);
}

/* The miptex named NAME in the .bsp bytes DATA (B read from them): its offset, or 0. */
static uint32_t find_miptex(const uint8_t *bytes, const rb_bsp *b, const char *name)
{
    uint32_t lump = bytes[4 + 8 * 2] | bytes[5 + 8 * 2] << 8 | bytes[6 + 8 * 2] << 16 |
                    (uint32_t) bytes[7 + 8 * 2] << 24;
    for (int i = 0; i < b->miptex_count; i++) {
        const uint8_t *o = bytes + lump + 4 + 4 * i;
        uint32_t at = lump + (o[0] | o[1] << 8 | o[2] << 16 | (uint32_t) o[3] << 24);
        if (strcmp((const char *) bytes + at, name) == 0) return at;
    }
    return 0;
}

static uint32_t le32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t) p[3] << 24;
}

/* WAD3 textures (their own palettes) become Quake's palette indices: with a WAD3 palette
 * made of Quake colours (a permutation of them), every texel must come back as exactly the
 * index of its colour, at every mip level; a colour that is only among Quake's fullbright
 * ones (224-254) goes to the nearest lit one, found by brute force; a '{' texture keeps its
 * see-through texels as 255. Without Quake's palette, a warning says the colours are off. */
CHECK_TEST(wad3, "/export/bsp/wad3-textures-are-turned-into-quakes-palette")
{
    uint8_t quake[768], own[768], pixels[32 * 16];
    for (int k = 0; k < 256; k++) { /* distinct colours */
        quake[3 * k] = (uint8_t) (k * 37 + 11);
        quake[3 * k + 1] = (uint8_t) (k * 91 + 5);
        quake[3 * k + 2] = (uint8_t) k;
    }
    int want[256]; /* the Quake index of each WAD3 index */
    for (int i = 0; i < 256; i++) {
        want[i] = (i * 5 + 7) % 224;
        memcpy(own + 3 * i, quake + 3 * want[i], 3);
    }
    /* WAD3 index 0 is Quake's fullbright 230: the nearest lit colour by brute force. */
    memcpy(own, quake + 3 * 230, 3);
    long best = LONG_MAX;
    for (int k = 0; k < 224; k++) {
        long d = 0;
        for (int c = 0; c < 3; c++)
            d += (long) (own[c] - quake[3 * k + c]) * (own[c] - quake[3 * k + c]);
        if (d < best) best = d, want[0] = k;
    }
    for (int i = 0; i < 32 * 16; i++) pixels[i] = (uint8_t) (i * 7 + 3);
    al_wad_texture_desc t[2] = {{"wall1", 32, 16, pixels, own}, {"{grate", 32, 16, pixels, own}};
    size_t wad_size;
    uint8_t *wad = al_wad_write(3, t, 2, NULL, &wad_size);
    REQUIRE(wad);
    al_wad *read = NULL;
    REQUIRE(al_wad_read(wad, wad_size, "test.wad", NULL, &read, NULL) == AL_OK);
    free(wad);
    al_texture_sources sources = {&read, NULL, 1};
    mapgen *g = room_map(0);
    mapgen_begin_entity(g, "func_wall");
    mapgen_box(g, 300, 200, 0, 316, 260, 64, "{grate");
    mapgen_end_entity(g);
    scene s = {0};
    REQUIRE(scene_load_mapgen(&s, g, &with_pvs));
    for (int pass = 0; pass < 2; pass++) {
        al_bsp_source src = {s.map, &s.input.input,          s.world, &sources, NULL,
                             NULL,  pass == 0 ? quake : NULL};
        void *data;
        size_t size;
        al_bsp_counts c;
        al_diag_list d = {0};
        REQUIRE(build(&src, AL_BSP29, &data, &size, &c, &d) == AL_OK);
        CHECK(c.miptex_missing == c.miptex - 2);
        bool warned = false;
        for (size_t i = 0; i < d.count; i++)
            warned |=
                strstr(d.items[i].message, "stand-in palette, not Quake's: 2 (") != NULL;
        CHECK(warned == (pass == 1));
        rb_bsp b;
        char why[200];
        REQUIRE_MSG(rb_read(data, size, &b, why, sizeof why), "%s", why);
        const uint8_t *bytes = data;
        int wrong = 0, compared = 0;
        for (int k = 0; k < 2 && pass == 0; k++) {
            uint32_t at = find_miptex(bytes, &b, k == 0 ? "wall1" : "{grate");
            REQUIRE_MSG(at, "no miptex %s", k == 0 ? "wall1" : "{grate");
            CHECK(le32(bytes + at + 16) == 32 && le32(bytes + at + 20) == 16);
            for (int m = 0; m < 4; m++) {
                const uint8_t *level = bytes + at + le32(bytes + at + 24 + 4 * m);
                for (int y = 0; y < 16 >> m; y++)
                    for (int x = 0; x < 32 >> m; x++) {
                        int source = pixels[(y << m) * 32 + (x << m)];
                        int expect = k == 1 && source == 255 ? 255 : want[source];
                        compared++;
                        wrong += level[y * (32 >> m) + x] != expect;
                    }
            }
        }
        if (pass == 0) {
            check_note("WAD3 texels compared with their Quake index: %d, %d wrong", compared,
                       wrong);
            CHECK(compared == 2 * (512 + 128 + 32 + 8) && wrong == 0);
        }
        rb_free(&b);
        free(data);
        al_diag_list_clear(&d);
    }
    al_wad_free(read);
    scene_free(&s);
}

/* The point of texture coordinates (S, T) on the plane N . p = D of texinfo TEX: the
 * least-squares answer of the three equations by elimination with partial pivoting. */
static void luxel_point(const rb_texinfo *tex, const double n[3], double d, double s, double t,
                        double p[3])
{
    double m[3][4] = {{tex->vecs[0][0], tex->vecs[0][1], tex->vecs[0][2], s - tex->vecs[0][3]},
                      {tex->vecs[1][0], tex->vecs[1][1], tex->vecs[1][2], t - tex->vecs[1][3]},
                      {n[0], n[1], n[2], d}};
    for (int c = 0; c < 3; c++) {
        int best = c;
        for (int r = c + 1; r < 3; r++)
            if (fabs(m[r][c]) > fabs(m[best][c])) best = r;
        for (int k = 0; k < 4; k++) {
            double x = m[c][k];
            m[c][k] = m[best][k];
            m[best][k] = x;
        }
        for (int r = 0; r < 3; r++) {
            if (r == c || m[c][c] == 0) continue;
            double f = m[r][c] / m[c][c];
            for (int k = 0; k < 4; k++) m[r][k] -= f * m[c][k];
        }
    }
    for (int c = 0; c < 3; c++) p[c] = m[c][c] != 0 ? m[c][3] / m[c][c] : 0;
}

static int quake_byte(float level)
{
    double b = level * 0.5;
    return b <= 0 ? 0 : b >= 255 ? 255 : (int) lround(b);
}

CHECK_TEST(light, "/export/bsp/lightmaps-are-the-radiosity-on-quakes-luxel-grid")
{
    scene s = {0};
    REQUIRE(scene_load_mapgen(&s, rotating_map(), &with_pvs));
    al_rad *rad = NULL;
    REQUIRE(al_rad_create(s.world, &s.input.input, NULL, &rad, NULL) == AL_OK);
    al_rad_run(rad, 0.05, 0, NULL, NULL);
    al_rad_lightmap map = {0};
    REQUIRE(al_rad_snapshot(rad, &map) == AL_OK);
    al_bsp_source src = {s.map, &s.input.input, s.world, NULL, rad, &map};
    al_bsp_files files;
    REQUIRE(al_bsp_build(&src, AL_BSP29, &files, NULL, NULL) == AL_OK);
    rb_bsp b;
    char why[200];
    REQUIRE_MSG(rb_read(files.bsp, files.bsp_size, &b, why, sizeof why), "%s", why);
    /* The .lit: "QLIT", version 1, three bytes for each of the .bsp's. */
    REQUIRE(files.lit && files.lit_size == 8 + 3 * b.lighting_bytes);
    const uint8_t *lit = files.lit;
    CHECK(memcmp(lit, "QLIT", 4) == 0 && lit[4] == 1 && lit[5] == 0 && lit[6] == 0 && lit[7] == 0);
    int luxels = 0, compared = 0, wrong = 0, unlit = 0, special = 0, moved = 0;
    for (int f = 0, model = 0; f < b.face_count; f++) {
        const rb_face *face = &b.faces[f];
        while (f >= b.models[model].first_face + b.models[model].face_count) model++;
        double origin[3];
        rb_model_origin(&b, model, origin);
        const rb_texinfo *tex = &b.texinfo[face->texinfo];
        if (tex->flags & 1) {
            special++;
            CHECK_MSG(face->lightofs == -1, "face %d, a liquid or sky, has a lightmap", f);
            continue;
        }
        if (face->lightofs < 0) {
            unlit++;
            continue;
        }
        double first[2];
        int size[2];
        rb_face_extents(&b, f, first, size);
        REQUIRE_MSG((size_t) face->lightofs + (size_t) size[0] * size[1] <= b.lighting_bytes,
                    "face %d's %d x %d luxels pass the lighting lump", f, size[0], size[1]);
        CHECK(face->lightofs + size[0] * size[1] <= (int) b.lighting_bytes);
        const rb_plane *pl = &b.planes[face->plane];
        double sign = face->side ? -1 : 1,
               n[3] = {sign * pl->normal[0], sign * pl->normal[1], sign * pl->normal[2]};
        for (int t = 0; t < size[1]; t++)
            for (int u = 0; u < size[0]; u++) {
                luxels++;
                double p[3];
                luxel_point(tex, n, sign * pl->dist, first[0] + 16 * u, first[1] + 16 * t, p);
                for (int k = 0; k < 3; k++) p[k] += origin[k];
                moved += origin[0] != 0;
                float level[3];
                if (!al_rad_shown_at(rad, &map, p, n, level)) continue;
                compared++;
                size_t at = (size_t) face->lightofs + (size_t) t * size[0] + u;
                const uint8_t *c = lit + 8 + 3 * at;
                int mean = (c[0] + c[1] + c[2] + 1) / 3;
                bool ok = abs(b.lighting[at] - mean) <= 1;
                for (int k = 0; k < 3; k++) ok = ok && abs(c[k] - quake_byte(level[k])) <= 1;
                if (!ok && wrong++ == 0)
                    check_fail(__FILE__, __LINE__,
                               "face %d luxel (%d, %d) at %.2f %.2f %.2f: lit %d %d %d, grey %d; "
                               "the radiosity shows %d %d %d",
                               f, u, t, p[0], p[1], p[2], c[0], c[1], c[2], b.lighting[at],
                               quake_byte(level[0]), quake_byte(level[1]), quake_byte(level[2]));
            }
    }
    check_note("%d faces: %d luxels, %d compared with the radiosity (%d differ); %d faces "
               "without lightmaps (%d liquid or sky)",
               b.face_count, luxels, compared, wrong, unlit + special, special);
    CHECK(wrong == 0);
    CHECK(compared > luxels / 2);
    CHECK(moved > 0); /* the blade's luxels, placed at its origin */
    CHECK(special > 0);
    rb_free(&b);
    al_bsp_files_free(&files);
    al_rad_lightmap_free(&map);
    al_rad_destroy(rad);
    scene_free(&s);
}

CHECK_TEST(generated, "/export/bsp/generated-maps-contents-equal-the-world")
{
    const char *maps[] = {"ALLIUM_GENERATED_SMALL_MAP", "ALLIUM_GENERATED_OFFGRID_MAP",
                          "ALLIUM_SAMPLE_MAP"};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        const char *path = getenv(maps[i]);
        if (!path) {
            check_skip(maps[i]);
            continue;
        }
        scene s = {0};
        REQUIRE_MSG(scene_load_file(&s, path, &with_pvs), "%s", path);
        check_both(&s, 20000, path);
        scene_free(&s);
    }
}

CHECK_TEST(real, "/export/bsp/real-maps-contents-equal-the-world")
{
    /* A sample for the suite's time: id's first map, a deathmatch map, and the start. */
    const char *names[] = {"e1m1.map", "dm2.map", "start.map"};
    int found = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *path = scene_shared_map(names[i]);
        if (!path) continue;
        found++;
        scene s = {0};
        REQUIRE_MSG(scene_load_file(&s, path, &with_pvs), "%s", path);
        check_both(&s, 20000, names[i]);
        scene_free(&s);
    }
    if (!found) check_skip("no real maps (meson option shared_maps)");
}

int main(int argc, char **argv)
{
    return check_main(argc, argv);
}
