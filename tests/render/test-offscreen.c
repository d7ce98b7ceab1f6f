/* The renderer drawing real images offscreen (EGL on Mesa's surfaceless platform): images
 * are not blank, match a stored reference within a tolerance, change when overlays are
 * toggled, and PVS and frustum culling never change what is seen (the oracle: the same
 * view drawn with culling off). Skipped, visibly, where no EGL/GL 3.3 context exists.
 *
 * References are 32x18 grids of cell-average colours (tests/render/references/NAME.txt), so
 * that rasterisation details of another Mesa version do not matter. Run with
 * ALLIUM_UPDATE_REFERENCES=DIR to write fresh ones into DIR. */
#include "al-offscreen.h"
#include "al-render.h"
#include "check.h"
#include "mapgen.h"
#include "materials/material-defaults.h"
#include "scene.h"
#include "scene/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 320, H = 180, GW = 32, GH = 18 };

static al_offscreen *off;
static al_renderer *renderer;
static uint8_t pixels[W * H * 4];

typedef struct loaded {
    scene sc;
    al_face_polys polys;
    al_scene *scene;
    float (*colours)[3];
} loaded;

/* Compiles PATH with a PVS (tight for small maps, else the coarse pass) and uploads it. */
static bool upload_loaded(loaded *l);

static bool load_path(loaded *l, const char *path, al_pvs_level level)
{
    memset(l, 0, sizeof *l);
    scene_options so = {.pvs = true, .pvs_level = level};
    return scene_load_file(&l->sc, path, &so) && upload_loaded(l);
}

/* The same for the map G writes (a tight PVS); frees G. */
static bool load_mapgen(loaded *l, mapgen *g)
{
    memset(l, 0, sizeof *l);
    scene_options so = {.pvs = true, .pvs_level = AL_PVS_TIGHT};
    return scene_load_mapgen(&l->sc, g, &so) && upload_loaded(l);
}

/* Colours, polygons and the scene of L's compiled map, given to the renderer. */
static bool upload_loaded(loaded *l)
{
    const al_input *in = &l->sc.input.input;
    l->colours = calloc((size_t) in->material_count + 1, sizeof *l->colours);
    for (int i = 0; i < in->material_count; i++)
        al_material_default_colour(in->materials[i].name, l->colours[i]);
    if (al_face_polys_build(in, &l->polys) != AL_OK) return false;
    al_scene_desc d = {.input = in, .world = l->sc.world,
                       .material_colours = (const float (*)[3]) l->colours};
    if (al_scene_build(&d, &l->scene) != AL_OK) return false;
    al_renderer_set_scene(renderer, l->scene);
    return true;
}

static void unload(loaded *l)
{
    al_renderer_set_scene(renderer, NULL);
    al_scene_destroy(l->scene);
    al_face_polys_free(&l->polys);
    free(l->colours);
    scene_free(&l->sc);
}

static void draw(const al_camera *cam, const al_draw_options *opt, al_draw_stats *st)
{
    al_renderer_draw(renderer, cam, opt, st);
    REQUIRE(al_offscreen_read(off, pixels));
}

static void camera_at_start(loaded *l, al_camera *cam)
{
    al_camera_init(cam, AL_VIEW_3D);
    cam->width = W, cam->height = H;
    const al_input *in = &l->sc.input.input;
    for (int e = 0; e < in->entity_count; e++) {
        if (strcmp(in->entities[e].classname, "info_player_start") != 0) continue;
        for (int p = 0; p < in->entities[e].property_count; p++) {
            const al_property *pr = &in->entities[e].properties[p];
            if (strcmp(pr->key, "origin") == 0)
                sscanf(pr->value, "%lf %lf %lf", &cam->position[0], &cam->position[1], &cam->position[2]);
            if (strcmp(pr->key, "angle") == 0) cam->yaw = atof(pr->value);
        }
        cam->position[2] += 22;
        return;
    }
}

static int distinct_colours(void)
{
    static uint8_t seen[1 << 15];
    memset(seen, 0, sizeof seen);
    int n = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = pixels + 4 * i;
        int key = (p[0] >> 3) << 10 | (p[1] >> 3) << 5 | (p[2] >> 3);
        if (!seen[key]) seen[key] = 1, n++;
    }
    return n;
}

static int count_pixels(bool (*pred)(const uint8_t *))
{
    int n = 0;
    for (int i = 0; i < W * H; i++) n += pred(pixels + 4 * i);
    return n;
}

static bool is_red(const uint8_t *p)
{
    return p[0] > 180 && p[1] < 110 && p[2] < 110;
}

static bool is_background(const uint8_t *p)
{
    return abs(p[0] - 28) <= 2 && abs(p[1] - 29) <= 2 && abs(p[2] - 33) <= 2;
}

static int differing_pixels(const uint8_t *a, const uint8_t *b)
{
    int n = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = a + 4 * i, *q = b + 4 * i;
        n += abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > 12;
    }
    return n;
}

/* Compares the image with reference NAME; see the file comment. */
static void check_reference(const char *name)
{
    static float grid[GH][GW][3];
    memset(grid, 0, sizeof grid);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int k = 0; k < 3; k++)
                grid[y * GH / H][x * GW / W][k] += pixels[4 * (y * W + x) + k] / (float) ((W / GW) * (H / GH));
    const char *update = getenv("ALLIUM_UPDATE_REFERENCES");
    char path[4096];
    if (update) {
        snprintf(path, sizeof path, "%s/%s.txt", update, name);
        FILE *f = fopen(path, "w");
        REQUIRE(f);
        for (int y = 0; y < GH; y++) {
            for (int x = 0; x < GW; x++)
                fprintf(f, "%s%d %d %d", x ? "  " : "", (int) lrintf(grid[y][x][0]),
                        (int) lrintf(grid[y][x][1]), (int) lrintf(grid[y][x][2]));
            fputc('\n', f);
        }
        fclose(f);
        check_note("wrote %s", path);
        return;
    }
    snprintf(path, sizeof path, "%s/%s.txt", getenv("ALLIUM_REFERENCES"), name);
    FILE *f = fopen(path, "r");
    REQUIRE_MSG(f, "no reference %s", path);
    int off_cells = 0, worst = 0;
    for (int y = 0; y < GH; y++)
        for (int x = 0; x < GW; x++) {
            int c[3];
            REQUIRE(fscanf(f, "%d %d %d", &c[0], &c[1], &c[2]) == 3);
            int d = 0;
            for (int k = 0; k < 3; k++) d = fmax(d, fabs(grid[y][x][k] - c[k]));
            if (d > worst) worst = d;
            off_cells += d > 16;
        }
    fclose(f);
    check_note("%s: %d of %d cells off by more than 16, worst %d", name, off_cells, GW * GH, worst);
    CHECK(off_cells <= GW * GH / 50);
}

CHECK_TEST(sample_3d, "/render/sample-3d-view-is-lit-and-matches-its-reference")
{
    loaded l;
    REQUIRE(load_path(&l, getenv("ALLIUM_SAMPLE_MAP"), AL_PVS_TIGHT));
    al_camera cam;
    camera_at_start(&l, &cam);
    al_draw_options opt;
    al_draw_options_init(&opt);
    al_draw_stats st;
    draw(&cam, &opt, &st);
    CHECK(st.camera_leaf >= 0);
    CHECK(st.faces_drawn > 20);
    int colours = distinct_colours(), background = count_pixels(is_background);
    check_note("%d colours, %d background pixels, %d faces drawn", colours, background, st.faces_drawn);
    CHECK(colours >= 12);
    CHECK(background < W * H / 100); /* inside a sealed room: walls everywhere */
    check_reference("sample-3d");
    unload(&l);
}

/* The sample map, and a top view framing it. */
static bool load_sample_top(loaded *l, al_camera *cam)
{
    if (!load_path(l, getenv("ALLIUM_SAMPLE_MAP"), AL_PVS_TIGHT)) return false;
    al_camera_init(cam, AL_VIEW_TOP);
    cam->width = W, cam->height = H;
    double mn[3], mx[3];
    if (!al_scene_bounds(l->scene, mn, mx)) return false;
    al_camera_frame(cam, mn, mx);
    return true;
}

CHECK_TEST(sample_top, "/render/top-view-draws-outlines-and-selection-on-the-grid")
{
    loaded l;
    al_camera cam;
    REQUIRE(load_sample_top(&l, &cam));
    al_draw_options opt;
    al_draw_options_init(&opt);
    draw(&cam, &opt, NULL);
    CHECK(count_pixels(is_red) < 200); /* only the X axis line may be reddish */
    int plain_red = count_pixels(is_red);
    check_reference("sample-top");
    int32_t brush = 0;
    opt.selected_brushes = &brush;
    opt.selected_brush_count = 1;
    draw(&cam, &opt, NULL);
    CHECK_MSG(count_pixels(is_red) > plain_red + 50, "%d red pixels", count_pixels(is_red));
    unload(&l);
}

static bool is_teal(const uint8_t *p)
{
    return abs(p[0] - 0) <= 2 && abs(p[1] - 128) <= 2 && abs(p[2] - 128) <= 2;
}

CHECK_TEST(background, "/render/the-background-colour-is-the-option")
{
    loaded l;
    al_camera cam;
    REQUIRE(load_sample_top(&l, &cam));
    al_draw_options opt;
    al_draw_options_init(&opt);
    opt.grid = 0;
    draw(&cam, &opt, NULL);
    int plain = count_pixels(is_background);
    CHECK_MSG(plain > W * H / 10 && count_pixels(is_teal) == 0,
              "%d pixels of the default background", plain);
    opt.background[0] = 0, opt.background[1] = 128 / 255.0f, opt.background[2] = 128 / 255.0f;
    draw(&cam, &opt, NULL);
    CHECK_MSG(count_pixels(is_teal) == plain && count_pixels(is_background) == 0,
              "%d teal pixels where %d were the default background", count_pixels(is_teal),
              plain);
    unload(&l);
}

static bool is_marker(const uint8_t *p)
{
    return abs(p[0] - 255) <= 3 && abs(p[1] - 170) <= 3 && abs(p[2] - 40) <= 3;
}

CHECK_TEST(eye_marker, "/render/the-3d-camera-is-marked-in-2d-views-where-it-is")
{
    loaded l;
    al_camera cam;
    REQUIRE(load_sample_top(&l, &cam));
    al_draw_options opt;
    al_draw_options_init(&opt);
    draw(&cam, &opt, NULL);
    CHECK(count_pixels(is_marker) == 0);
    /* At the view's centre looking along +X: the ring around the centre, the arrow to its
     * right. */
    opt.has_eye = true;
    memcpy(opt.eye, cam.position, sizeof opt.eye);
    opt.eye_forward[0] = 1, opt.eye_forward[1] = 0, opt.eye_forward[2] = 0;
    draw(&cam, &opt, NULL);
    int left = 0, right = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (is_marker(pixels + 4 * (y * W + x))) {
                CHECK_MSG(abs(x - W / 2) <= 26 && abs(y - H / 2) <= 9, "marker pixel at %d %d", x,
                          y);
                left += x < W / 2 - 8, right += x > W / 2 + 8;
            }
    CHECK_MSG(right > 10 && left == 0, "arrow pixels: %d right of the ring, %d left", right, left);
    unload(&l);
}

CHECK_TEST(overlays, "/render/each-overlay-changes-the-image")
{
    loaded l;
    REQUIRE(load_path(&l, getenv("ALLIUM_SAMPLE_MAP"), AL_PVS_TIGHT));
    al_camera cam;
    camera_at_start(&l, &cam);
    cam.pitch = -20;
    al_draw_options opt;
    al_draw_options_init(&opt);
    opt.overlays = 0;
    static uint8_t base[W * H * 4];
    draw(&cam, &opt, NULL);
    memcpy(base, pixels, sizeof base);
    static const struct {
        unsigned bit;
        const char *name;
    } bits[] = {{AL_OVERLAY_PORTALS, "portals"},   {AL_OVERLAY_PVS, "pvs"},
                {AL_OVERLAY_CLUSTER, "cluster"},   {AL_OVERLAY_ENTITIES, "entities"}};
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
        opt.overlays = bits[i].bit;
        draw(&cam, &opt, NULL);
        int d = differing_pixels(base, pixels);
        check_note("%s: %d pixels change", bits[i].name, d);
        CHECK_MSG(d > W * H / 200, "%s changes only %d pixels", bits[i].name, d);
    }
    /* The split planes of the block around the camera: nothing until they are given. */
    opt.overlays = AL_OVERLAY_SPLITS;
    draw(&cam, &opt, NULL);
    CHECK_MSG(differing_pixels(base, pixels) == 0, "the splits overlay drew before any splits");
    al_block_splits sp;
    REQUIRE(al_world_block_splits(l.sc.world, cam.position, &sp) == AL_OK);
    CHECK(sp.count > 0);
    REQUIRE(al_renderer_set_splits(renderer, &sp));
    draw(&cam, &opt, NULL);
    int d = differing_pixels(base, pixels);
    check_note("splits: %d polygons, %d pixels change", sp.count, d);
    CHECK_MSG(d > W * H / 200, "splits change only %d pixels", d);
    al_block_splits_free(&sp);
    REQUIRE(al_renderer_set_splits(renderer, NULL));
    draw(&cam, &opt, NULL);
    CHECK(differing_pixels(base, pixels) == 0);
    opt.overlays = 0;
    opt.wireframe = true;
    draw(&cam, &opt, NULL);
    CHECK(differing_pixels(base, pixels) > W * H / 200);
    unload(&l);
}

/* Every light's reach is its own overlay: in a 2D view the circles come only with
 * AL_OVERLAY_LIGHT_RADII, except the selected light's; a 3D view draws them with it too. */
CHECK_TEST(light_radii, "/render/light-radii-only-when-asked-or-selected")
{
    loaded l;
    al_camera cam;
    REQUIRE(load_sample_top(&l, &cam));
    const al_input *in = &l.sc.input.input;
    int32_t light = -1;
    for (int e = 0; e < in->entity_count && light < 0; e++)
        if (strcmp(in->entities[e].classname, "light") == 0) light = e;
    REQUIRE(light >= 0);
    al_draw_options opt;
    al_draw_options_init(&opt);
    static uint8_t plain[W * H * 4], selected[W * H * 4];
    opt.overlays = AL_OVERLAY_ENTITIES;
    draw(&cam, &opt, NULL);
    memcpy(plain, pixels, sizeof plain);
    opt.overlays = AL_OVERLAY_ENTITIES | AL_OVERLAY_LIGHT_RADII;
    draw(&cam, &opt, NULL);
    int all = differing_pixels(plain, pixels);
    check_note("top view: every light's reach changes %d pixels", all);
    CHECK_MSG(all > W * H / 200, "the light radii change only %d pixels", all);
    /* Without the entities overlay there is nothing of the entities, reach included. */
    opt.overlays = AL_OVERLAY_LIGHT_RADII;
    draw(&cam, &opt, NULL);
    memcpy(selected, pixels, sizeof selected);
    opt.overlays = 0;
    draw(&cam, &opt, NULL);
    CHECK(differing_pixels(selected, pixels) == 0);

    /* One light selected: its circle shows without the overlay, so turning the overlay on
     * adds less than it did, and still adds (the other lights). */
    opt.selected_entities = &light;
    opt.selected_entity_count = 1;
    opt.overlays = AL_OVERLAY_ENTITIES;
    draw(&cam, &opt, NULL);
    memcpy(selected, pixels, sizeof selected);
    int circle = differing_pixels(plain, selected);
    opt.overlays = AL_OVERLAY_ENTITIES | AL_OVERLAY_LIGHT_RADII;
    draw(&cam, &opt, NULL);
    int rest = differing_pixels(selected, pixels);
    check_note("selected light: %d pixels change, then the others' reach %d", circle, rest);
    CHECK_MSG(circle > W * H / 1000, "selecting a light changes only %d pixels", circle);
    CHECK_MSG(rest > 0 && rest < all, "the other lights' reach changes %d of %d pixels", rest, all);

    opt.selected_entity_count = 0;
    camera_at_start(&l, &cam);
    opt.overlays = AL_OVERLAY_ENTITIES;
    draw(&cam, &opt, NULL);
    memcpy(plain, pixels, sizeof plain);
    opt.overlays = AL_OVERLAY_ENTITIES | AL_OVERLAY_LIGHT_RADII;
    draw(&cam, &opt, NULL);
    int d3 = differing_pixels(plain, pixels);
    check_note("3D view: every light's reach changes %d pixels", d3);
    CHECK_MSG(d3 > W * H / 1000, "the light radii change only %d pixels in 3D", d3);
    unload(&l);
}

/* Draws views from points in empty space with culling on and off: they must agree. */
static void check_culling(loaded *l, int views, unsigned seed, int *culled)
{
    double mn[3], mx[3];
    REQUIRE(al_scene_bounds(l->scene, mn, mx));
    static uint8_t culled_img[W * H * 4];
    int done = 0, worst = 0;
    for (int tries = 0; done < views && tries < views * 50; tries++) {
        al_camera cam;
        al_camera_init(&cam, AL_VIEW_3D);
        cam.width = W, cam.height = H;
        for (int k = 0; k < 3; k++)
            cam.position[k] = mn[k] + (mx[k] - mn[k]) * (rand_r(&seed) / (double) RAND_MAX);
        if (al_world_vis_leaf_at(l->sc.world, cam.position) < 0) continue;
        /* Closer to a wall than the near plane, the view sees through it, into what the
         * PVS rightly left out. */
        al_trace tr;
        al_world_trace_box(l->sc.world, (double[3]){-2, -2, -2}, (double[3]){2, 2, 2},
                           cam.position, cam.position, &tr);
        if (tr.start_solid) continue;
        cam.yaw = rand_r(&seed) % 360;
        cam.pitch = (int) (rand_r(&seed) % 120) - 60;
        al_draw_options opt;
        al_draw_options_init(&opt);
        opt.overlays = 0;
        al_draw_stats st;
        draw(&cam, &opt, &st);
        *culled += st.faces_culled_pvs;
        memcpy(culled_img, pixels, sizeof culled_img);
        opt.no_cull = true;
        draw(&cam, &opt, NULL);
        int d = differing_pixels(culled_img, pixels);
        if (d > worst) worst = d;
        CHECK_MSG(d <= W * H / 500, "view %d from %g %g %g yaw %g pitch %g: %d pixels differ",
                  done, cam.position[0], cam.position[1], cam.position[2], cam.yaw, cam.pitch, d);
        done++;
    }
    CHECK(done == views);
    check_note("%d views, worst %d differing pixels, %d faces culled by the PVS", done, worst, *culled);
}

CHECK_TEST(culling_sample, "/render/culling-never-changes-the-picture/sample")
{
    loaded l;
    REQUIRE(load_path(&l, getenv("ALLIUM_SAMPLE_MAP"), AL_PVS_TIGHT));
    int culled = 0;
    check_culling(&l, 12, 21, &culled);
    unload(&l);
}

CHECK_TEST(culling_e1m1, "/render/culling-never-changes-the-picture/e1m1")
{
    const char *path = scene_shared_map("e1m1.map");
    if (!path) {
        check_skip("e1m1.map is not in the shared maps folder");
        return;
    }
    loaded l;
    REQUIRE(load_path(&l, path, AL_PVS_COARSE));
    int culled = 0;
    check_culling(&l, 30, 22, &culled);
    CHECK(culled > 0);
    al_camera cam;
    camera_at_start(&l, &cam);
    al_draw_options opt;
    al_draw_options_init(&opt);
    draw(&cam, &opt, NULL);
    CHECK(distinct_colours() >= 12);
    CHECK(count_pixels(is_background) < W * H / 50);
    check_reference("e1m1-3d");
    unload(&l);
}

/* Whether DRAWN, drawn by a renderer that never saw a scene before gives the picture
 * EXPECTED (false too if no renderer could be made). */
static bool drawn_fresh_alike(const al_scene *drawn, const al_camera *cam,
                              const al_draw_options *opt, const uint8_t *expected)
{
    char error[256];
    al_renderer *fresh = al_renderer_create(error, sizeof error);
    CHECK_MSG(fresh, "a second renderer: %s", error);
    if (!fresh) return false;
    al_renderer_set_scene(fresh, drawn);
    al_renderer_draw(fresh, cam, opt, NULL);
    bool read = al_offscreen_read(off, pixels);
    al_renderer_destroy(fresh);
    return read && memcmp(expected, pixels, sizeof pixels) == 0;
}

/* An input as the editor hands it to the scene: ids and keys per brush, and a copy of its
 * faces to move brushes in (EDITED reads them). */
typedef struct editable {
    int64_t *ids;
    uint64_t *keys;
    al_face_desc *faces;
    al_input edited;
} editable;

static bool editable_init(editable *e, const al_input *in)
{
    int n = in->brush_count;
    e->ids = malloc(((size_t) n + 1) * sizeof *e->ids);
    e->keys = malloc(((size_t) n + 1) * sizeof *e->keys);
    e->faces = malloc(((size_t) in->face_count + 1) * sizeof *e->faces);
    if (!e->ids || !e->keys || !e->faces) return false;
    for (int b = 0; b < n; b++) e->ids[b] = 100 + b, e->keys[b] = 1;
    memcpy(e->faces, in->faces, (size_t) in->face_count * sizeof *e->faces);
    e->edited = *in;
    e->edited.faces = e->faces;
    e->edited.brush_keys = NULL; /* the edits change them */
    return true;
}

/* Moves brush B of the edited input BY units along AXIS; its key changes. */
static void editable_move(editable *e, int b, int axis, double by)
{
    const al_brush_desc *bd = &e->edited.brushes[b];
    for (int f = bd->first_face; f < bd->first_face + bd->face_count; f++)
        for (int p = 0; p < 3; p++) e->faces[f].points[p][axis] += by;
    e->keys[b] += 1;
}

static void editable_free(editable *e)
{
    free(e->ids), free(e->keys), free(e->faces);
}

/* The sample map as the editor hands it to the scene (ids and keys per brush and entity),
 * its scene BEFORE, and AFTER: built from BEFORE with brush MOVED moved 16 units up; D
 * builds the next scenes from ED. */
typedef struct moved_scenes {
    loaded l;
    editable ed;
    int64_t *entity_ids;
    uint64_t *entity_keys;
    al_scene_desc d;
    al_scene *before, *after;
    int n, moved;
    al_camera cam;
    al_draw_options opt;
} moved_scenes;

static bool moved_scenes_init(moved_scenes *f, const char *path, int moved_per_brushes)
{
    memset(f, 0, sizeof *f);
    if (!load_path(&f->l, path, AL_PVS_TIGHT)) return false;
    const al_input *in = &f->l.sc.input.input;
    f->n = in->brush_count;
    f->moved = f->n / moved_per_brushes;
    if (!editable_init(&f->ed, in)) return false;
    f->entity_ids = malloc(((size_t) in->entity_count + 1) * sizeof *f->entity_ids);
    f->entity_keys = calloc((size_t) in->entity_count + 1, sizeof *f->entity_keys);
    if (!f->entity_ids || !f->entity_keys) return false;
    for (int e = 0; e < in->entity_count; e++) f->entity_ids[e] = e;
    f->d = (al_scene_desc){.input = in,
                           .material_colours = (const float(*)[3]) f->l.colours,
                           .brush_ids = f->ed.ids,
                           .brush_keys = f->ed.keys,
                           .entity_ids = f->entity_ids,
                           .entity_keys = f->entity_keys};
    if (al_scene_build(&f->d, &f->before) != AL_OK) return false;
    editable_move(&f->ed, f->moved, 2, 16);
    f->d.input = &f->ed.edited;
    f->d.previous = f->before;
    if (al_scene_build(&f->d, &f->after) != AL_OK) return false;
    camera_at_start(&f->l, &f->cam);
    al_draw_options_init(&f->opt);
    return true;
}

/* (AFTER is the caller's once it takes it over.) */
static void moved_scenes_free(moved_scenes *f)
{
    al_scene_destroy(f->after);
    al_scene_destroy(f->before);
    editable_free(&f->ed);
    free(f->entity_ids), free(f->entity_keys);
    unload(&f->l);
}

CHECK_TEST(incremental, "/render/a-scene-built-from-the-one-before-uploads-its-new-meshes-only")
{
    moved_scenes f;
    REQUIRE(moved_scenes_init(&f, getenv("ALLIUM_SAMPLE_MAP"), 2));
    al_renderer_set_scene(renderer, f.before);
    draw(&f.cam, &f.opt, NULL);
    int64_t uploaded = al_renderer_uploaded_vertices(renderer);
    al_renderer_set_scene(renderer, f.after);
    draw(&f.cam, &f.opt, NULL);
    static uint8_t incremental[W * H * 4];
    memcpy(incremental, pixels, sizeof incremental);
    const al_mesh *m = f.after->brushes[f.moved];
    REQUIRE(m);
    int64_t expected = m->tri_count + m->line_count;
    CHECK_MSG(al_renderer_uploaded_vertices(renderer) - uploaded == expected,
              "%lld vertices uploaded for a scene that changed one brush of %d vertices",
              (long long) (al_renderer_uploaded_vertices(renderer) - uploaded), (int) expected);
    /* Drawn by a renderer that never saw the scene before: the same picture. */
    CHECK_MSG(drawn_fresh_alike(f.after, &f.cam, &f.opt, incremental),
              "the scene drawn after the one before differs from it drawn fresh");
    /* And after many such scenes the store holds what the last one draws. */
    al_scene *prev = f.after;
    f.after = NULL;
    for (int i = 0; i < 30; i++) {
        editable_move(&f.ed, (f.moved + 7 * i) % f.n, 0, i % 2 ? -8 : 8);
        f.d.previous = prev;
        al_scene *next = NULL;
        REQUIRE(al_scene_build(&f.d, &next) == AL_OK);
        al_renderer_set_scene(renderer, next);
        draw(&f.cam, &f.opt, NULL);
        al_scene_destroy(prev);
        prev = next;
    }
    memcpy(incremental, pixels, sizeof incremental);
    CHECK_MSG(drawn_fresh_alike(prev, &f.cam, &f.opt, incremental),
              "after 30 scenes the store draws otherwise than a fresh renderer");
    al_renderer_set_scene(renderer, NULL);
    al_scene_destroy(prev);
    moved_scenes_free(&f);
}

/* What R draws of its scene from CAM, against a renderer that never saw a scene before. */
static bool drawn_as_fresh(al_renderer *r, const al_scene *drawn_scene, const al_camera *cam,
                           const al_draw_options *opt)
{
    static uint8_t drawn[W * H * 4];
    al_renderer_draw(r, cam, opt, NULL);
    if (!al_offscreen_read(off, pixels)) return false;
    memcpy(drawn, pixels, sizeof drawn);
    return drawn_fresh_alike(drawn_scene, cam, opt, drawn);
}

/* Two views of a window draw from one store (their contexts share objects): a mesh both
 * draw is uploaded once, a renderer that moves on to a newer scene leaves the other's
 * meshes alone, and either may go first. Each picture must be what a renderer of its own
 * draws of the same scene. */
static void check_sharing(const char *path)
{
    moved_scenes f;
    REQUIRE(moved_scenes_init(&f, path, 3));
    const al_camera *cam = &f.cam;
    const al_draw_options *opt = &f.opt;
    char error[256];
    al_renderer *a = al_renderer_create(error, sizeof error);
    REQUIRE(a);
    al_renderer *b = al_renderer_create_sharing(a, error, sizeof error);
    REQUIRE(b);

    al_renderer_set_scene(a, f.before);
    int64_t all = al_renderer_uploaded_vertices(a);
    CHECK(all > 0);
    al_renderer_set_scene(b, f.before);
    CHECK_MSG(al_renderer_uploaded_vertices(b) == all,
              "the second renderer uploaded %lld vertices of a scene the first holds",
              (long long) (al_renderer_uploaded_vertices(b) - all));
    CHECK_MSG(drawn_as_fresh(b, f.before, cam, opt), "the sharing renderer draws otherwise");

    /* B moves on: only the moved brush is new; A still draws the scene before. */
    al_renderer_set_scene(b, f.after);
    const al_mesh *m = f.after->brushes[f.moved];
    REQUIRE(m);
    CHECK_MSG(al_renderer_uploaded_vertices(b) - all ==
                  (int64_t) m->tri_count + m->line_count + m->radius_count,
              "%lld vertices uploaded for a scene that changed one brush",
              (long long) (al_renderer_uploaded_vertices(b) - all));
    CHECK_MSG(drawn_as_fresh(a, f.before, cam, opt),
              "the first renderer's scene changed when the second moved on");
    CHECK_MSG(drawn_as_fresh(b, f.after, cam, opt), "the second renderer's new scene differs");

    /* A goes first; B keeps drawing, and a third made from B joins it over many scenes,
     * each renderer a scene behind the other half of the time. */
    al_renderer_destroy(a);
    CHECK_MSG(drawn_as_fresh(b, f.after, cam, opt),
              "the store lost meshes with the first renderer");
    al_renderer *c = al_renderer_create_sharing(b, error, sizeof error);
    REQUIRE(c);
    al_scene *prev = f.after, *older = NULL;
    f.after = NULL;
    int wrong = 0;
    for (int i = 0; i < 30; i++) {
        editable_move(&f.ed, (f.moved + 5 * i) % f.n, i % 3, i % 2 ? -8 : 8);
        f.d.previous = prev;
        al_scene *next = NULL;
        REQUIRE(al_scene_build(&f.d, &next) == AL_OK);
        al_renderer *ahead = i % 2 ? b : c, *behind = i % 2 ? c : b;
        al_renderer_set_scene(ahead, next);
        al_renderer_set_scene(behind, prev);
        wrong += !drawn_as_fresh(ahead, next, cam, opt);
        wrong += !drawn_as_fresh(behind, prev, cam, opt);
        if (older) al_scene_destroy(older);
        older = prev;
        prev = next;
    }
    CHECK_MSG(wrong == 0, "%d of 60 pictures from renderers sharing a store differ", wrong);
    al_renderer_destroy(b);
    al_renderer_set_scene(c, prev);
    CHECK_MSG(drawn_as_fresh(c, prev, cam, opt), "the last renderer of the store draws otherwise");
    check_note("%s: %lld vertices uploaded to the store, 60 pictures compared", path,
               (long long) al_renderer_uploaded_vertices(c));
    al_renderer_destroy(c);
    al_scene_destroy(prev);
    if (older) al_scene_destroy(older);
    moved_scenes_free(&f);
}

CHECK_TEST(sharing_sample, "/render/renderers-sharing-a-store-upload-a-mesh-once/sample")
{
    check_sharing(getenv("ALLIUM_SAMPLE_MAP"));
}

CHECK_TEST(sharing_e1m1, "/render/renderers-sharing-a-store-upload-a-mesh-once/e1m1")
{
    const char *path = scene_shared_map("e1m1.map");
    if (!path) {
        check_skip("e1m1.map is not in the shared maps folder");
        return;
    }
    check_sharing(path);
}

/* Without a PVS the 3D view still leaves out what cannot show: faces outside the view and
 * faces the eye sees from behind (the opaque pass culls back faces: GL would draw none of
 * their pixels), and entity boxes outside the view. From random points in and around the
 * map, looking anywhere, with entities, light radii and the wireframe on in turn, the
 * picture must equal the one drawn without culling pixel for pixel, and both kinds of
 * culling must leave something out. */
static void check_exact_culling(const char *path, int views, unsigned seed)
{
    loaded l;
    memset(&l, 0, sizeof l);
    scene_options so = {.pvs = false};
    REQUIRE(scene_load_file(&l.sc, path, &so) && upload_loaded(&l));
    double mn[3], mx[3];
    REQUIRE(al_scene_bounds(l.scene, mn, mx));
    static uint8_t culled_img[W * H * 4];
    long back = 0, outside = 0, drawn = 0;
    int worst = 0;
    for (int v = 0; v < views; v++) {
        al_camera cam;
        al_camera_init(&cam, AL_VIEW_3D);
        cam.width = W, cam.height = H;
        for (int k = 0; k < 3; k++)
            cam.position[k] =
                mn[k] - 64 + (mx[k] - mn[k] + 128) * (rand_r(&seed) / (double) RAND_MAX);
        cam.yaw = rand_r(&seed) % 360;
        cam.pitch = (int) (rand_r(&seed) % 160) - 80;
        al_draw_options opt;
        al_draw_options_init(&opt);
        opt.overlays = AL_OVERLAY_DEFAULT | (v % 3 == 1 ? AL_OVERLAY_LIGHT_RADII : 0);
        opt.wireframe = v % 2 == 1;
        al_draw_stats st;
        draw(&cam, &opt, &st);
        REQUIRE(st.camera_leaf < 0 || st.faces_culled_pvs == 0);
        back += st.faces_culled_back, outside += st.faces_culled_frustum, drawn += st.faces_drawn;
        memcpy(culled_img, pixels, sizeof culled_img);
        opt.no_cull = true;
        draw(&cam, &opt, NULL);
        int d = differing_pixels(culled_img, pixels);
        if (d > worst) worst = d;
        CHECK_MSG(d == 0, "view %d from %g %g %g yaw %g pitch %g: %d pixels differ", v,
                  cam.position[0], cam.position[1], cam.position[2], cam.yaw, cam.pitch, d);
    }
    CHECK(back > 0 && outside > 0);
    check_note("%d views, worst %d differing pixels; faces drawn %ld, facing away %ld, outside the "
               "view %ld",
               views, worst, drawn, back, outside);
    unload(&l);
}

CHECK_TEST(exact_culling_sample,
           "/render/faces-facing-away-or-out-of-view-are-left-out-unseen/sample")
{
    check_exact_culling(getenv("ALLIUM_SAMPLE_MAP"), 40, 31);
}

CHECK_TEST(exact_culling_e1m1, "/render/faces-facing-away-or-out-of-view-are-left-out-unseen/e1m1")
{
    const char *path = scene_shared_map("e1m1.map");
    if (!path) {
        check_skip("e1m1.map is not in the shared maps folder");
        return;
    }
    check_exact_culling(path, 40, 32);
}

/* The pixels that differ between AFTER drawn from CAM right after BEFORE (the last PVS
 * carried over, as for an edit's collision) and AFTER drawn without culling; the carried
 * frame's figures into ST. The renderer is left with AFTER. */
static int carried_differs(const al_scene *before, const al_scene *after, const al_camera *cam,
                           al_draw_stats *st)
{
    static uint8_t carried_img[W * H * 4];
    al_draw_options opt;
    al_draw_options_init(&opt);
    opt.overlays = 0;
    al_renderer_set_scene(renderer, before);
    draw(cam, &opt, NULL);
    al_renderer_set_scene(renderer, after);
    draw(cam, &opt, st);
    memcpy(carried_img, pixels, sizeof carried_img);
    opt.no_cull = true;
    draw(cam, &opt, NULL);
    return differing_pixels(carried_img, pixels);
}

/* An edit's collision comes without a PVS (its portals follow): the renderer carries the
 * last PVS over, with what the moved brush may open. From random points in empty space,
 * the scene after moving one brush (no world: no PVS) drawn with the carried culling must
 * look as it does drawn without culling; and the carrying must leave something out. */
CHECK_TEST(carried_pvs, "/render/an-edit-without-a-pvs-yet-is-culled-by-the-last-one")
{
    const char *path = scene_shared_map("e1m1.map");
    if (!path) path = getenv("ALLIUM_SAMPLE_MAP");
    loaded l;
    REQUIRE(load_path(&l, path, AL_PVS_COARSE));
    const al_input *in = &l.sc.input.input;
    int n = in->brush_count;
    editable ed;
    REQUIRE(editable_init(&ed, in));
    al_scene_desc d = {.input = in,
                       .world = l.sc.world,
                       .material_colours = (const float(*)[3]) l.colours,
                       .brush_ids = ed.ids,
                       .brush_keys = ed.keys};
    al_scene *before = NULL;
    REQUIRE(al_scene_build(&d, &before) == AL_OK);
    double mn[3], mx[3];
    REQUIRE(al_scene_bounds(before, mn, mx));
    unsigned seed = 23;
    int done = 0, worst = 0, culled = 0;
    for (int tries = 0; done < 24 && tries < 24 * 50; tries++) {
        al_camera cam;
        al_camera_init(&cam, AL_VIEW_3D);
        cam.width = W, cam.height = H;
        for (int k = 0; k < 3; k++)
            cam.position[k] = mn[k] + (mx[k] - mn[k]) * (rand_r(&seed) / (double) RAND_MAX);
        if (al_world_vis_leaf_at(l.sc.world, cam.position) < 0) continue;
        al_trace tr;
        al_world_trace_box(l.sc.world, (double[3]){-2, -2, -2}, (double[3]){2, 2, 2}, cam.position,
                           cam.position, &tr);
        if (tr.start_solid) continue;
        cam.yaw = rand_r(&seed) % 360;
        cam.pitch = (int) (rand_r(&seed) % 120) - 60;
        /* A brush near the eye, so that what it opens or hides is in view: moved up to 64
         * units along one axis, or every other view far away (what it hid opens up). */
        int moved = -1;
        double best = INFINITY;
        for (int t = 0; t < 40; t++) {
            int b = (int) (rand_r(&seed) % (unsigned) n);
            double bmn[3], bmx[3], d2 = 0;
            if (!al_scene_brush_bounds(before, b, bmn, bmx)) continue;
            for (int k = 0; k < 3; k++) {
                double c = 0.5 * (bmn[k] + bmx[k]) - cam.position[k];
                d2 += c * c;
            }
            if (d2 < best) best = d2, moved = b;
        }
        if (moved < 0) continue;
        /* (each view edits the map as it was) */
        memcpy(ed.faces, in->faces, (size_t) in->face_count * sizeof *ed.faces);
        int axis = (int) (rand_r(&seed) % 3);
        double by = 16.0 * (1 + (int) (rand_r(&seed) % 4)) * (rand_r(&seed) % 2 ? 1 : -1);
        if (done % 2) by = 8192;
        editable_move(&ed, moved, axis, by);
        al_scene_desc e = d;
        e.input = &ed.edited;
        e.world = NULL;
        e.previous = before;
        al_scene *after = NULL;
        REQUIRE(al_scene_build(&e, &after) == AL_OK);
        ed.keys[moved] = 1;
        al_draw_stats st;
        int diff = carried_differs(before, after, &cam, &st);
        culled += st.faces_culled_pvs;
        if (diff > worst) worst = diff;
        CHECK_MSG(diff <= W * H / 500,
                  "view %d from %g %g %g yaw %g pitch %g, brush %d moved %g along %d: %d pixels "
                  "differ",
                  done, cam.position[0], cam.position[1], cam.position[2], cam.yaw, cam.pitch,
                  moved, by, axis, diff);
        al_renderer_set_scene(renderer, NULL);
        al_scene_destroy(after);
        done++;
    }
    CHECK(done == 24);
    CHECK_MSG(culled > 0, "the carried PVS left nothing out");
    check_note("%s: %d views, worst %d differing pixels, %d faces left out by the carried PVS",
               path, done, worst, culled);
    al_scene_destroy(before);
    editable_free(&ed);
    unload(&l);
}

/* L's scene BEFORE (with its world and PVS) and AFTER: brush B taken away (moved far up),
 * built from BEFORE without a world, as an edit's collision comes; false if either could
 * not be built. */
static bool scenes_without(loaded *l, editable *ed, int b, al_scene **before, al_scene **after)
{
    al_scene_desc d = {.input = &l->sc.input.input,
                       .world = l->sc.world,
                       .material_colours = (const float(*)[3]) l->colours,
                       .brush_ids = ed->ids,
                       .brush_keys = ed->keys};
    if (al_scene_build(&d, before) != AL_OK) return false;
    editable_move(ed, b, 2, 8192);
    d.input = &ed->edited;
    d.world = NULL;
    d.previous = *before;
    return al_scene_build(&d, after) == AL_OK;
}

/* Two sealed rooms side by side, a wall between them, the eye in the west one looking east:
 * the east room is not in its PVS. The wall moved away (an edit's collision, no PVS yet),
 * the east room must be drawn, as the carried PVS adds what a changed brush may open. */
CHECK_TEST(carried_opening,
           "/render/an-edit-that-opens-a-wall-shows-the-room-behind-before-its-pvs")
{
    mapgen *g = mapgen_create(true);
    REQUIRE(g);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_box(g, -16, -16, -16, 528, 272, 0, "floor");
    mapgen_box(g, -16, -16, 256, 528, 272, 272, "ceiling");
    mapgen_box(g, -16, -16, 0, 0, 272, 256, "wall_west");
    mapgen_box(g, 512, -16, 0, 528, 272, 256, "wall_east");
    mapgen_box(g, 0, -16, 0, 512, 0, 256, "wall_south");
    mapgen_box(g, 0, 256, 0, 512, 272, 256, "wall_north");
    mapgen_box(g, 248, 0, 0, 264, 256, 256, "divider");
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 128, 128, 64);
    mapgen_point_entity(g, "light", 384, 128, 128);
    loaded l;
    REQUIRE(load_mapgen(&l, g)); /* (which frees G) */
    const al_input *in = &l.sc.input.input;
    int n = in->brush_count, divider = n - 1;
    int west = al_world_vis_leaf_at(l.sc.world, (double[3]){128, 128, 128});
    int east = al_world_vis_leaf_at(l.sc.world, (double[3]){500, 128, 128});
    REQUIRE(west >= 0 && east >= 0);
    CHECK(!al_world_leaf_sees(l.sc.world, west, east));
    editable ed;
    REQUIRE(editable_init(&ed, in));
    al_scene *before = NULL, *after = NULL;
    REQUIRE(scenes_without(&l, &ed, divider, &before, &after));
    al_camera cam;
    al_camera_init(&cam, AL_VIEW_3D);
    cam.width = W, cam.height = H;
    cam.position[0] = 128, cam.position[1] = 128, cam.position[2] = 128;
    cam.yaw = 0, cam.pitch = 0;
    al_draw_stats st;
    int diff = carried_differs(before, after, &cam, &st);
    CHECK_MSG(diff <= W * H / 500, "%d pixels differ from the picture without culling", diff);
    CHECK_MSG(count_pixels(is_background) < W * H / 100, "the view shows the background");
    check_note("the east room opened: %d pixels differ, %d faces drawn, %d left out", diff,
               st.faces_drawn, st.faces_culled_pvs);
    al_renderer_set_scene(renderer, NULL);
    al_scene_destroy(after);
    al_scene_destroy(before);
    editable_free(&ed);
    unload(&l);
}

/* The same through a doorway: a plug in the doorway of the wall between two rooms, the east
 * one full of low pillars, the eye in the west room looking through the doorway at a
 * slant. The plug taken away (no PVS yet), the pillars seen through the doorway must be
 * drawn, those off the cone of sight through it may be left out, and some are: every
 * leaf of the east room sees the doorway, so only the cone keeps them out. */
CHECK_TEST(carried_doorway, "/render/an-edit-that-opens-a-doorway-shows-what-lies-beyond-it")
{
    mapgen *g = mapgen_create(true);
    REQUIRE(g);
    mapgen_begin_entity(g, "worldspawn");
    mapgen_room(g, 0, 0, 0, 1024, 512, 256, 16, "wall");
    mapgen_box(g, 248, 0, 0, 264, 224, 256, "divider");
    mapgen_box(g, 248, 288, 0, 264, 512, 256, "divider");
    mapgen_box(g, 248, 224, 128, 264, 288, 256, "lintel");
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            double x = 400 + 80 * i, y = 24 + 64 * j;
            mapgen_box(g, x, y, 0, x + 16, y + 16, 96, "pillar");
        }
    mapgen_box(g, 248, 224, 0, 264, 288, 128, "plug"); /* the last brush */
    mapgen_end_entity(g);
    mapgen_point_entity(g, "info_player_start", 64, 64, 64);
    mapgen_point_entity(g, "light", 128, 256, 200);
    mapgen_point_entity(g, "light", 700, 256, 200);
    loaded l;
    REQUIRE(load_mapgen(&l, g)); /* (which frees G) */
    const al_input *in = &l.sc.input.input;
    int plug = in->brush_count - 1;
    editable ed;
    REQUIRE(editable_init(&ed, in));
    al_scene *before = NULL, *after = NULL;
    REQUIRE(scenes_without(&l, &ed, plug, &before, &after));
    int worst = 0, left_out = 0, views = 0;
    /* From three places in the west room, each looking at the doorway's middle. */
    static const double eyes[][3] = {{40, 40, 48}, {200, 460, 100}, {120, 256, 64}};
    for (size_t v = 0; v < sizeof eyes / sizeof eyes[0]; v++) {
        al_camera cam;
        al_camera_init(&cam, AL_VIEW_3D);
        cam.width = W, cam.height = H;
        memcpy(cam.position, eyes[v], sizeof cam.position);
        cam.yaw = atan2(256 - eyes[v][1], 256 - eyes[v][0]) * 180 / M_PI;
        cam.pitch = atan2(64 - eyes[v][2], hypot(256 - eyes[v][0], 256 - eyes[v][1])) * 180 / M_PI;
        al_draw_stats st;
        int diff = carried_differs(before, after, &cam, &st);
        CHECK_MSG(diff <= W * H / 2000,
                  "from %g %g %g: %d pixels differ from the picture "
                  "without culling",
                  eyes[v][0], eyes[v][1], eyes[v][2], diff);
        if (diff > worst) worst = diff;
        left_out += st.faces_culled_pvs;
        views++;
    }
    check_note("the doorway opened, %d views: worst %d differing pixels, %d faces left out", views,
               worst, left_out);
    CHECK_MSG(left_out > 0, "the carried PVS left nothing beyond the doorway out");
    al_renderer_set_scene(renderer, NULL);
    al_scene_destroy(after);
    al_scene_destroy(before);
    editable_free(&ed);
    unload(&l);
}

CHECK_TEST(leak, "/render/a-leak-path-is-drawn-in-red")
{
    /* A floor slab with a light above it: the void is everywhere. */
    static const char *text =
        "{\n\"classname\" \"worldspawn\"\n"
        "{\n( -128 -128 -16 ) ( -128 128 -16 ) ( 128 -128 -16 ) floor 0 0 0 1 1\n"
        "( -128 -128 0 ) ( 128 -128 0 ) ( -128 128 0 ) floor 0 0 0 1 1\n"
        "( -128 -128 -16 ) ( 128 -128 -16 ) ( -128 -128 0 ) floor 0 0 0 1 1\n"
        "( -128 128 -16 ) ( -128 128 0 ) ( 128 128 -16 ) floor 0 0 0 1 1\n"
        "( -128 -128 -16 ) ( -128 -128 0 ) ( -128 128 -16 ) floor 0 0 0 1 1\n"
        "( 128 -128 -16 ) ( 128 128 -16 ) ( 128 -128 0 ) floor 0 0 0 1 1\n}\n"
        "}\n{\n\"classname\" \"light\"\n\"origin\" \"0 0 64\"\n}\n";
    loaded l;
    memset(&l, 0, sizeof l);
    REQUIRE(scene_load_text(&l.sc, text, strlen(text), NULL));
    REQUIRE(al_face_polys_build(&l.sc.input.input, &l.polys) == AL_OK);
    al_scene_desc d = {.input = &l.sc.input.input, .world = l.sc.world};
    REQUIRE(al_scene_build(&d, &l.scene) == AL_OK);
    al_renderer_set_scene(renderer, l.scene);
    al_scene_stats ss;
    al_scene_get_stats(l.scene, &ss);
    CHECK(ss.leak_points >= 2);
    al_camera cam;
    al_camera_init(&cam, AL_VIEW_FRONT);
    cam.width = W, cam.height = H;
    al_leak_info li;
    REQUIRE(al_world_leak(l.sc.world, &li));
    double mn[3] = {-200, -200, -50}, mx[3] = {200, 200, 400};
    al_camera_frame(&cam, mn, mx);
    al_draw_options opt;
    al_draw_options_init(&opt);
    opt.overlays = AL_OVERLAY_LEAK;
    opt.grid = 0;
    draw(&cam, &opt, NULL);
    int with = count_pixels(is_red);
    opt.overlays = 0;
    draw(&cam, &opt, NULL);
    int without = count_pixels(is_red);
    check_note("%d red pixels with the leak overlay, %d without", with, without);
    CHECK(with > 10 && without == 0);
    unload(&l);
}

int main(int argc, char **argv)
{
    char error[256];
    off = al_offscreen_create(W, H, error, sizeof error);
    if (off) renderer = al_renderer_create(error, sizeof error);
    if (!off || !renderer) {
        check_skip_all(error);
        al_offscreen_destroy(off);
        return check_main(argc, argv);
    }
    int status = check_main(argc, argv);
    al_renderer_destroy(renderer);
    al_offscreen_destroy(off);
    return status;
}
