/* Radiosity lightmaps in the renderer, offscreen (EGL on Mesa's surfaceless platform): a
 * sealed room with one light is compiled, lit by the solver and drawn. The floor near the
 * light must come out brighter than the floor far from it, the picture without the
 * lightmap must differ from the lit one and equal a scene built without radiosity, and a
 * later snapshot of the same solver must replace the first in place. The CPU half checks
 * the scene's atlas coordinates against al_rad_face and the level-to-byte conversion.
 * Skipped, visibly, where no EGL/GL 3.3 context exists (the CPU tests still run). */
#include "al-offscreen.h"
#include "al-render.h"
#include "check.h"
#include "scene.h"
#include "scene/scene.h"
#include "materials/material-defaults.h"
#include "textures/sources.h"
#include "textures/wad-write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { W = 320, H = 180 };

static al_offscreen *off;
static al_renderer *renderer;
static uint8_t pixels[W * H * 4];

/* The room's inside: 512 long (X), 128 wide, 128 high, walls 16 thick; the light hangs
 * 64 units in from the west wall, halfway up. */
#define ROOM_X 256
#define ROOM_Y 64
#define ROOM_Z 128
#define LIGHT_X (-ROOM_X + 64)
#define LIGHT_Z 64

/* Appends an axis-aligned brush from MN to MX in Quake's format (clockwise plane points
 * seen from outside). */
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
             mn[0], mn[1], mn[2], mn[0], mn[1] + 1, mn[2], mn[0], mn[1], mn[2] + 1, mat,
             mx[0], mx[1], mx[2], mx[0], mx[1], mx[2] + 1, mx[0], mx[1] + 1, mx[2], mat,
             mn[0], mn[1], mn[2], mn[0], mn[1], mn[2] + 1, mn[0] + 1, mn[1], mn[2], mat,
             mx[0], mx[1], mx[2], mx[0] + 1, mx[1], mx[2], mx[0], mx[1], mx[2] + 1, mat,
             mn[0], mn[1], mn[2], mn[0] + 1, mn[1], mn[2], mn[0], mn[1] + 1, mn[2], mat,
             mx[0], mx[1], mx[2], mx[0], mx[1] + 1, mx[2], mx[0] + 1, mx[1], mx[2], mat);
}

/* The sealed room: floor, ceiling and four walls, one light, optionally a clip brush (a
 * tool face must never get a lightmap). */
static const char *room_floor = "stone"; /* the floor's material (room_load_floor) */

static void room_text(char *text, size_t size, bool light, bool clip)
{
    const int t = 16;
    text[0] = '\0';
    snprintf(text, size, "{\n\"classname\" \"worldspawn\"\n");
    const int boxes[6][2][3] = {
        {{-ROOM_X - t, -ROOM_Y - t, -t}, {ROOM_X + t, ROOM_Y + t, 0}},          /* floor */
        {{-ROOM_X - t, -ROOM_Y - t, ROOM_Z}, {ROOM_X + t, ROOM_Y + t, ROOM_Z + t}}, /* ceiling */
        {{-ROOM_X - t, -ROOM_Y - t, 0}, {-ROOM_X, ROOM_Y + t, ROOM_Z}},          /* west */
        {{ROOM_X, -ROOM_Y - t, 0}, {ROOM_X + t, ROOM_Y + t, ROOM_Z}},            /* east */
        {{-ROOM_X, -ROOM_Y - t, 0}, {ROOM_X, -ROOM_Y, ROOM_Z}},                  /* south */
        {{-ROOM_X, ROOM_Y, 0}, {ROOM_X, ROOM_Y + t, ROOM_Z}},                    /* north */
    };
    for (int i = 0; i < 6; i++)
        add_box(text, size, boxes[i][0], boxes[i][1], i ? "stone" : room_floor);
    if (clip) {
        const int mn[3] = {0, -32, 0}, mx[3] = {32, 32, 64};
        add_box(text, size, mn, mx, "clip");
    }
    size_t n = strlen(text);
    snprintf(text + n, size - n, "}\n");
    if (light) {
        n = strlen(text);
        snprintf(text + n, size - n,
                 "{\n\"classname\" \"light\"\n\"origin\" \"%d 0 %d\"\n\"light\" \"300\"\n}\n",
                 LIGHT_X, LIGHT_Z);
    }
}

typedef struct lit_room {
    scene sc;
    al_face_polys polys;
    al_rad *rad;
    al_scene *scene;       /* built with the rad */
    al_scene *plain_scene; /* built without */
} lit_room;

static void room_free(lit_room *r)
{
    al_scene_destroy(r->scene);
    al_scene_destroy(r->plain_scene);
    al_rad_destroy(r->rad);
    al_face_polys_free(&r->polys);
    scene_free(&r->sc);
}

/* Compiles the room and creates its solver (nothing shot yet) and both scenes. */
static bool room_load(lit_room *r, bool light, bool clip)
{
    memset(r, 0, sizeof *r);
    static char text[16384];
    room_text(text, sizeof text, light, clip);
    scene_options so = {.pvs = true, .pvs_level = AL_PVS_TIGHT};
    if (!scene_load_text(&r->sc, text, strlen(text), &so) || !r->sc.world) return false;
    const al_input *in = &r->sc.input.input;
    al_leak_info leak;
    if (al_world_leak(r->sc.world, &leak)) return false; /* the room must be sealed */
    al_diag_list diags = {0};
    al_rad_options ro = {0};
    al_status st = al_rad_create(r->sc.world, in, &ro, &r->rad, &diags);
    al_diag_list_clear(&diags);
    if (st != AL_OK) return false;
    if (al_face_polys_build(in, &r->polys) != AL_OK) return false;
    al_scene_desc d = {.input = in, .world = r->sc.world, .rad = r->rad};
    if (al_scene_build(&d, &r->scene) != AL_OK) return false;
    d.rad = NULL;
    return al_scene_build(&d, &r->plain_scene) == AL_OK;
}

/* The room with its floor of MATERIAL. */
static bool room_load_floor(lit_room *r, const char *material)
{
    room_floor = material;
    bool ok = room_load(r, true, false);
    room_floor = "stone";
    return ok;
}

/* Looking straight down at the floor from just under the ceiling in the middle of the
 * room: screen up is +X, so the light's end of the floor is at the bottom. */
static void camera_over_floor(al_camera *cam)
{
    al_camera_init(cam, AL_VIEW_3D);
    cam->width = W, cam->height = H;
    cam->position[0] = 0, cam->position[1] = 0, cam->position[2] = ROOM_Z - 8;
    cam->yaw = 0;
    cam->pitch = -89;
}

/* The camera close over the floor (a texel covers a few pixels), no overlays. */
static void close_over_floor(al_camera *cam, al_draw_options *opt)
{
    camera_over_floor(cam);
    cam->position[2] = 40;
    al_draw_options_init(opt);
    opt->overlays = 0;
}

static void draw(const al_camera *cam, const al_draw_options *opt, al_draw_stats *st)
{
    al_renderer_draw(renderer, cam, opt, st);
    REQUIRE(al_offscreen_read(off, pixels));
}

/* Mean luminance of the 9x9 pixels around where map point P is drawn. */
static double brightness_at(const al_camera *cam, const double p[3])
{
    double x, y;
    if (!al_camera_project(cam, p, &x, &y)) return -1;
    int cx = (int) lround(x), cy = (int) lround(y), n = 0;
    double sum = 0;
    for (int dy = -4; dy <= 4; dy++)
        for (int dx = -4; dx <= 4; dx++) {
            int px = cx + dx, py = cy + dy;
            if (px < 0 || py < 0 || px >= W || py >= H) continue;
            const uint8_t *q = pixels + 4 * (py * W + px);
            sum += 0.3 * q[0] + 0.59 * q[1] + 0.11 * q[2];
            n++;
        }
    return n ? sum / n : -1;
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

CHECK_TEST(to_rgba8, "/render/lit/light-levels-become-bytes-of-half-the-level")
{
    float texels[6][3] = {{0, 128, 510}, {256, 1000, -5}, {NAN, 1, 3}, {509, 511, 254},
                          {64, 32, 16}, {0, 0, 0}};
    al_rad_lightmap map = {.width = 3, .height = 2, .texels = texels};
    uint8_t rgba[6 * 4];
    al_lightmap_to_rgba8(&map, rgba);
    const uint8_t want[6][4] = {{0, 64, 255, 255},   {128, 255, 0, 255}, {0, 0, 2, 255},
                                {254, 255, 127, 255}, {32, 16, 8, 255},   {0, 0, 0, 255}};
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 4; k++)
            CHECK_MSG(rgba[4 * i + k] == want[i][k], "texel %d channel %d: %d, expected %d", i, k,
                      rgba[4 * i + k], want[i][k]);
}

CHECK_TEST(to_rgba8_big, "/render/lit/a-big-atlas-is-converted-whole-texel-by-texel")
{
    /* 1037 x 263 texels of levels from below 0 to above 510: every texel must be the
     * rule's byte (half the level, rounded, clamped), the alpha 255. */
    const int w = 1037, h = 263;
    size_t n = (size_t) w * h;
    float(*texels)[3] = malloc(n * sizeof *texels);
    uint8_t *rgba = malloc(n * 4);
    REQUIRE(texels && rgba);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) texels[i][k] = (float) ((i * 7 + (size_t) k * 131) % 600) - 40;
    al_rad_lightmap map = {.width = w, .height = h, .texels = texels};
    memset(rgba, 0xAB, n * 4);
    al_lightmap_to_rgba8(&map, rgba);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) {
            float b = texels[i][k < 3 ? k : 0] * 0.5f;
            int want = k == 3 ? 255 : b >= 255.0f ? 255 : b > 0.0f ? (int) lrintf(b) : 0;
            if (rgba[4 * i + k] != want && wrong++ == 0) first = i;
        }
    CHECK_MSG(wrong == 0, "%zu bytes wrong, the first at texel %zu", wrong, first);
    free(texels);
    free(rgba);
}

CHECK_TEST(coordinates, "/render/lit/faces-get-the-atlas-coordinates-of-their-lightmap")
{
    lit_room r;
    REQUIRE(room_load(&r, true, true));
    const al_scene *s = r.scene;
    int aw, ah;
    al_rad_atlas_size(r.rad, &aw, &ah);
    REQUIRE(aw > 0 && ah > 0);
    CHECK(s->lightmap_width == aw && s->lightmap_height == ah);
    int mapped = 0, tools = 0;
    for (int b = 0; b < s->brush_count; b++) {
        const al_mesh *m = s->brushes[b];
        for (int f = 0; m && f < m->face_count; f++) {
            const al_mesh_face *sf = &m->faces[f];
            al_rad_face_map fm;
            bool has = al_rad_face(r.rad, b, sf->face, &fm);
            if (sf->flags & AL_FACE_TOOL) {
                tools++;
                has = false; /* tool faces are drawn without a lightmap, whatever the solver says */
            }
            mapped += has;
            for (int v = sf->first_tri; v < sf->first_tri + sf->tri_count; v++) {
                const al_vertex *vx = &m->tris[v];
                if (!has) {
                    CHECK_MSG(vx->lightmap[0] == AL_NO_LIGHTMAP && vx->lightmap[1] == AL_NO_LIGHTMAP,
                              "face %d of brush %d has no lightmap but coordinates %g %g", sf->face,
                              b, vx->lightmap[0], vx->lightmap[1]);
                    continue;
                }
                /* Inside the face's rectangle (its border texel included); in texels. */
                double x = vx->lightmap[0], y = vx->lightmap[1];
                CHECK_MSG(x >= fm.x - 1e-3 && x <= fm.x + fm.width + 1e-3 && y >= fm.y - 1e-3 &&
                              y <= fm.y + fm.height + 1e-3,
                          "face %d of brush %d: texel %g %g outside its rectangle %d %d %dx%d",
                          sf->face, b, x, y, fm.x, fm.y, fm.width, fm.height);
                /* The normalised coordinates the solver gives are the same place. */
                double s_n = vx->pos[0] * fm.s_axis[0] + vx->pos[1] * fm.s_axis[1] +
                             vx->pos[2] * fm.s_axis[2] + fm.s_offset;
                CHECK_MSG(fabs(s_n * aw - x) < 1e-2, "face %d of brush %d: s %g texels, %g normalised",
                          sf->face, b, x, s_n);
            }
        }
    }
    al_scene_stats ss;
    al_scene_get_stats(s, &ss);
    check_note("%d of %d faces lit, %d tool faces, atlas %dx%d", ss.lit_faces, ss.faces, tools,
               aw, ah);
    CHECK(ss.lit_faces == mapped);
    CHECK(ss.lit_faces >= 6); /* at least the room's six inner faces */
    CHECK(tools == 6);
    al_scene_stats plain;
    al_scene_get_stats(r.plain_scene, &plain);
    CHECK(plain.lit_faces == 0);
    room_free(&r);
}

CHECK_TEST(floor_near_light, "/render/lit/the-floor-is-brighter-near-the-light")
{
    if (!renderer) {
        check_skip("no offscreen OpenGL 3.3 context");
        return;
    }
    lit_room r;
    REQUIRE(room_load(&r, true, false));
    al_rad_stats rs;
    al_rad_get_stats(r.rad, &rs);
    CHECK(rs.lights == 1);
    al_rad_step(r.rad, rs.lights);
    al_rad_lightmap direct = {0}, converged = {0};
    REQUIRE(al_rad_snapshot(r.rad, &direct) == AL_OK);
    al_rad_stop stop = al_rad_run(r.rad, 0.01, 120, NULL, NULL);
    al_rad_get_stats(r.rad, &rs);
    check_note("%s after %lld shots: residual %.4f", stop == AL_RAD_STOP_RESIDUAL ? "converged" : "stopped",
               (long long) rs.shots, rs.residual);
    CHECK(stop == AL_RAD_STOP_RESIDUAL && rs.residual <= 0.01);
    REQUIRE(al_rad_snapshot(r.rad, &converged) == AL_OK);

    al_camera cam;
    camera_over_floor(&cam);
    al_draw_options opt;
    al_draw_options_init(&opt);
    opt.overlays = 0;
    al_draw_stats st;
    static uint8_t lit[W * H * 4], unlit[W * H * 4], first[W * H * 4];

    al_renderer_set_scene(renderer, r.scene);
    al_renderer_set_lightmap(renderer, NULL); /* an earlier test's, of the same size */
    draw(&cam, &opt, &st);
    CHECK_MSG(!st.lightmapped, "no lightmap uploaded yet, but the frame was lit");
    REQUIRE(al_renderer_set_lightmap(renderer, &direct) == AL_OK);
    draw(&cam, &opt, &st);
    CHECK(st.lightmapped);
    memcpy(first, pixels, sizeof first);
    /* A newer snapshot of the same atlas replaces the first in place. */
    REQUIRE(al_renderer_set_lightmap(renderer, &converged) == AL_OK);
    draw(&cam, &opt, &st);
    CHECK(st.lightmapped);
    memcpy(lit, pixels, sizeof lit);
    int d = differing_pixels(first, lit);
    check_note("the converged lightmap changes %d pixels of the direct light's", d);
    CHECK(d > W * H / 20); /* the light bounced: the far end is no longer black */

    /* The floor, from under the light to the far end. */
    const double near_p[3] = {LIGHT_X + 96, 0, 0}, mid_p[3] = {0, 0, 0},
                 far_p[3] = {ROOM_X - 160, 0, 0};
    double near_b = brightness_at(&cam, near_p), mid_b = brightness_at(&cam, mid_p),
           far_b = brightness_at(&cam, far_p);
    check_note("floor brightness: %.1f near the light, %.1f in the middle, %.1f far away", near_b,
               mid_b, far_b);
    CHECK(near_b > 0 && mid_b > 0 && far_b > 0);
    CHECK(near_b > mid_b + 10);
    CHECK(mid_b > far_b + 10);
    memcpy(pixels, first, sizeof pixels);
    double far_direct = brightness_at(&cam, far_p);
    check_note("far floor with direct light only (and the ambient estimate): %.1f", far_direct);

    /* Without the lightmap: the flat look, exactly as a scene built without radiosity. */
    opt.no_lightmap = true;
    draw(&cam, &opt, &st);
    CHECK(!st.lightmapped);
    memcpy(unlit, pixels, sizeof unlit);
    d = differing_pixels(lit, unlit);
    check_note("%d pixels differ between the lit and the unlit picture", d);
    CHECK(d > W * H / 4);
    al_renderer_set_scene(renderer, r.plain_scene);
    opt.no_lightmap = false;
    draw(&cam, &opt, &st);
    CHECK(!st.lightmapped);
    CHECK_MSG(memcmp(unlit, pixels, sizeof unlit) == 0,
              "no_lightmap is not the picture of a scene without radiosity");

    /* The lightmap stays across scenes of its atlas size (a scene built from the one
     * before keeps its faces' places), and only shows with a scene that has places. */
    al_renderer_set_scene(renderer, r.scene);
    draw(&cam, &opt, &st);
    CHECK(st.lightmapped && memcmp(lit, pixels, sizeof lit) == 0);
    REQUIRE(al_renderer_set_lightmap(renderer, NULL) == AL_OK);
    draw(&cam, &opt, &st);
    CHECK(!st.lightmapped && memcmp(unlit, pixels, sizeof unlit) == 0);

    al_renderer_set_scene(renderer, NULL);
    al_rad_lightmap_free(&direct);
    al_rad_lightmap_free(&converged);
    room_free(&r);
}

/* A uniform light level L shows the material's colour times L / 256 (Quake shows its
 * lightmap byte, half the level, over 128): level 256 is the material's own colour, 128
 * half of it, and more is clamped to white. */
CHECK_TEST(display_scale, "/render/lit/a-level-of-256-shows-the-materials-own-colour")
{
    if (!renderer) {
        check_skip("no offscreen OpenGL 3.3 context");
        return;
    }
    lit_room r;
    REQUIRE(room_load(&r, true, false));
    al_rad_lightmap map = {0};
    REQUIRE(al_rad_snapshot(r.rad, &map) == AL_OK);
    float stone[3];
    al_material_default_colour("stone", stone);
    double expect_full = 255 * (0.3 * stone[0] + 0.59 * stone[1] + 0.11 * stone[2]);
    al_camera cam;
    camera_over_floor(&cam);
    al_draw_options opt;
    al_draw_options_init(&opt);
    opt.overlays = 0;
    al_draw_stats st;
    al_renderer_set_scene(renderer, r.scene);
    const double levels[3] = {256, 128, 64};
    const double at[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        for (int t = 0; t < map.width * map.height; t++)
            map.texels[t][0] = map.texels[t][1] = map.texels[t][2] = (float) levels[i];
        map.ambient[0] = map.ambient[1] = map.ambient[2] = 0;
        REQUIRE(al_renderer_set_lightmap(renderer, &map) == AL_OK);
        draw(&cam, &opt, &st);
        double b = brightness_at(&cam, at), want = expect_full * levels[i] / 256;
        CHECK_MSG(st.lightmapped && fabs(b - want) <= 3, "level %g: brightness %.1f, expected %.1f",
                  levels[i], b, want);
    }
    al_renderer_set_lightmap(renderer, NULL);
    al_renderer_set_scene(renderer, NULL);
    al_rad_lightmap_free(&map);
    room_free(&r);
}

CHECK_TEST(highlights, "/render/lit/selection-and-overlays-still-show-on-lit-faces")
{
    if (!renderer) {
        check_skip("no offscreen OpenGL 3.3 context");
        return;
    }
    lit_room r;
    REQUIRE(room_load(&r, true, false));
    al_rad_stats rs;
    al_rad_get_stats(r.rad, &rs);
    al_rad_step(r.rad, rs.lights);
    al_rad_lightmap map = {0};
    REQUIRE(al_rad_snapshot(r.rad, &map) == AL_OK);
    al_renderer_set_scene(renderer, r.scene);
    REQUIRE(al_renderer_set_lightmap(renderer, &map) == AL_OK);
    al_camera cam;
    camera_over_floor(&cam);
    al_draw_options opt;
    al_draw_options_init(&opt);
    opt.overlays = 0;
    static uint8_t base[W * H * 4];
    draw(&cam, &opt, NULL);
    memcpy(base, pixels, sizeof base);
    int32_t floor_brush = 0;
    opt.selected_brushes = &floor_brush;
    opt.selected_brush_count = 1;
    draw(&cam, &opt, NULL);
    int d = differing_pixels(base, pixels);
    check_note("selecting the floor changes %d pixels", d);
    CHECK(d > W * H / 10);
    opt.selected_brush_count = 0;
    opt.overlays = AL_OVERLAY_PORTALS | AL_OVERLAY_ENTITIES;
    opt.wireframe = true;
    draw(&cam, &opt, NULL);
    d = differing_pixels(base, pixels);
    check_note("entities and wireframe change %d pixels", d);
    CHECK(d > 50);
    al_renderer_set_scene(renderer, NULL);
    al_rad_lightmap_free(&map);
    room_free(&r);
}

CHECK_TEST(no_lights, "/render/lit/a-map-without-lights-has-no-light-to-show")
{
    lit_room r;
    REQUIRE(room_load(&r, false, false));
    al_rad_stats rs;
    al_rad_get_stats(r.rad, &rs);
    CHECK(rs.lights == 0);
    al_rad_step(r.rad, 1);
    al_rad_get_stats(r.rad, &rs);
    /* What the tools and the editor test before showing a lightmap: all black is no help. */
    CHECK(!(rs.emitted > 0));
    room_free(&r);
}

/* The texture of the texture tests: 64 x 64 texels in four 32-texel quadrants of distinct
 * colours, so a pixel well inside a quadrant has one expected colour whatever the filter. */
static void quadrant_texture(uint8_t *rgba)
{
    static const uint8_t colours[4][3] = {
        {200, 60, 30}, {40, 180, 90}, {70, 90, 230}, {250, 240, 200}};
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            const uint8_t *c = colours[(y / 32) * 2 + x / 32];
            uint8_t *p = rgba + 4 * (y * 64 + x);
            p[0] = c[0], p[1] = c[1], p[2] = c[2], p[3] = 255;
        }
}

/* The floor point under pixel (X, Y) (the ray through the pixel's centre meets z = 0);
 * false where the floor is not seen there. */
static bool floor_point(const al_camera *cam, int x, int y, double p[3])
{
    double o[3], d[3];
    al_camera_ray(cam, x + 0.5, y + 0.5, o, d);
    if (!(d[2] < -1e-6)) return false;
    double t = -o[2] / d[2];
    for (int k = 0; k < 3; k++) p[k] = o[k] + t * d[k];
    /* Not where a wall hides the floor. */
    return fabs(p[0]) < ROOM_X - 2 && fabs(p[1]) < ROOM_Y - 2;
}

/* Whether the floor's texel at P and every texel within MARGIN units of it share CELL
 * (texels of a square): away from the edges filtering cannot mix in a neighbour. */
static bool inside_cell(const double p[3], int cell, double margin)
{
    /* The floor's projection (standard, no offset, rotation or scale): u = x, v = -y. */
    int cu = (int) floor(p[0] / cell), cv = (int) floor(-p[1] / cell);
    return (int) floor((p[0] - margin) / cell) == cu && (int) floor((p[0] + margin) / cell) == cu &&
           (int) floor((-p[1] - margin) / cell) == cv && (int) floor((-p[1] + margin) / cell) == cv;
}

/* Draws again with textures off: how many pixels differ from the frame drawn last (-1 if
 * the frame still counted as textured). */
static int pixels_changed_without_textures(const al_camera *cam, al_draw_options *opt)
{
    static uint8_t before[W * H * 4];
    memcpy(before, pixels, sizeof before);
    opt->no_textures = true;
    al_draw_stats st;
    draw(cam, opt, &st);
    return st.textured ? -1 : differing_pixels(before, pixels);
}

/* ROOM's lightmap with every texel at LEVEL (into MAP), and the quadrant texture (into
 * TEXELS, 64 x 64) given to the renderer as NAME. */
static bool level_lightmap_and_texture(const lit_room *room, const float level[3], const char *name,
                                       al_rad_lightmap *map, uint8_t *texels)
{
    if (al_rad_snapshot(room->rad, map) != AL_OK) return false;
    for (int t = 0; t < map->width * map->height; t++)
        for (int k = 0; k < 3; k++) map->texels[t][k] = level[k];
    quadrant_texture(texels);
    al_texture_image image = {.name = name, .width = 64, .height = 64, .rgba = texels};
    return al_renderer_set_textures(renderer, &image, 1, 0) == AL_OK;
}

/* The floor's pixels (every third) whose point lies more than MARGIN inside a CELL-unit
 * square, against the 64 x 64 TEXELS' texel there (u = x, v = -y) times SCALE per channel,
 * bounded by 255: how many channels differ by more than TOLERANCE. *CHECKED counts the
 * pixels looked at, *WORST (if given) the largest difference. */
static int floor_texel_misses(const al_camera *cam, const uint8_t *texels, int cell, double margin,
                              const double scale[3], double tolerance, int *checked, double *worst)
{
    int bad = 0;
    *checked = 0;
    for (int y = 0; y < H; y += 3)
        for (int x = 0; x < W; x += 3) {
            double p[3];
            if (!floor_point(cam, x, y, p) || !inside_cell(p, cell, margin)) continue;
            int u = ((int) floor(p[0]) % 64 + 64) % 64, v = ((int) floor(-p[1]) % 64 + 64) % 64;
            const uint8_t *texel = texels + 4 * (v * 64 + u);
            const uint8_t *px = pixels + 4 * (y * W + x);
            for (int k = 0; k < 3; k++) {
                double diff = fabs(px[k] - fmin(texel[k] * scale[k], 255));
                if (worst && diff > *worst) *worst = diff;
                bad += diff > tolerance;
            }
            (*checked)++;
        }
    return bad;
}

CHECK_TEST(textures_times_light, "/render/lit/a-texture-is-drawn-times-the-lightmap")
{
    /* Oracle: for pixels over the floor, the texel its projection picks (u = x, v = -y,
     * repeating every 64) times the light level per channel, level / 128 showing the
     * texel as is (the lightmap byte is level / 2, drawn as byte / 255 x 510 / 256). The
     * levels differ per channel, so a swapped or missing factor shows. */
    if (!renderer) {
        check_skip("no offscreen OpenGL 3.3 context");
        return;
    }
    lit_room r;
    REQUIRE(room_load(&r, true, false));
    al_rad_lightmap map = {0};
    static const float level[3] = {256, 128, 80};
    static uint8_t texels[64 * 64 * 4];
    REQUIRE(level_lightmap_and_texture(&r, level, "STONE", &map, texels));
    CHECK(al_renderer_has_texture(renderer, "stone") &&
          !al_renderer_has_texture(renderer, "brick"));
    al_renderer_set_scene(renderer, r.scene);
    REQUIRE(al_renderer_set_lightmap(renderer, &map) == AL_OK);
    al_camera cam;
    al_draw_options opt;
    close_over_floor(&cam, &opt); /* close: a texel covers a few pixels */
    al_draw_stats st;
    draw(&cam, &opt, &st);
    CHECK(st.lightmapped && st.textured);
    double factor[3], worst = 0;
    for (int k = 0; k < 3; k++) factor[k] = round(level[k] / 2) / 255.0 * 510.0 / 256.0;
    int checked, bad = floor_texel_misses(&cam, texels, 32, 2.0, factor, 3, &checked, &worst);
    check_note("%d pixels checked against texel x light: worst difference %.0f", checked, worst);
    CHECK(checked > 1000 && bad == 0);
    /* The view option: flat colours again, exactly as without textures. */
    CHECK(pixels_changed_without_textures(&cam, &opt) > W * H / 2);
    static uint8_t flat[W * H * 4];
    memcpy(flat, pixels, sizeof flat);
    REQUIRE(al_renderer_set_textures(renderer, NULL, 0, 0) == AL_OK);
    opt.no_textures = false;
    draw(&cam, &opt, &st);
    CHECK(!st.textured && differing_pixels(flat, pixels) == 0);
    al_renderer_set_lightmap(renderer, NULL);
    al_renderer_set_scene(renderer, NULL);
    al_rad_lightmap_free(&map);
    room_free(&r);
}

CHECK_TEST(sky_full_bright, "/render/lit/a-sky-texture-is-drawn-full-bright-in-a-lit-frame")
{
    /* Oracle: sky (like liquids) is drawn as its texels are, as Quake draws it: neither
     * the fixed shading nor a light level changes it, in a lit frame with a dim lightmap
     * as in an unlit one; with textures off it is shaded like any face again. */
    if (!renderer) {
        check_skip("no offscreen OpenGL 3.3 context");
        return;
    }
    lit_room r;
    REQUIRE(room_load_floor(&r, "sky1"));
    al_rad_lightmap map = {0};
    static const float dim[3] = {40, 40, 40};
    static uint8_t texels[64 * 64 * 4];
    REQUIRE(level_lightmap_and_texture(&r, dim, "SKY1", &map, texels));
    al_camera cam;
    al_draw_options opt;
    close_over_floor(&cam, &opt);
    al_draw_stats st;
    for (int lit = 0; lit < 2; lit++) {
        al_renderer_set_scene(renderer, lit ? r.scene : r.plain_scene);
        if (lit) REQUIRE(al_renderer_set_lightmap(renderer, &map) == AL_OK);
        draw(&cam, &opt, &st);
        CHECK(st.textured && st.lightmapped == (bool) lit);
        static const double as_is[3] = {1, 1, 1};
        int checked, bad = floor_texel_misses(&cam, texels, 32, 2.0, as_is, 1, &checked, NULL);
        check_note("%s frame: %d sky pixels checked against their texels, %d channels differ",
                   lit ? "lit" : "unlit", checked, bad);
        CHECK(checked > 1000 && bad == 0);
    }
    /* Textures off: the sky's flat colour, shaded (not the texels). */
    CHECK(pixels_changed_without_textures(&cam, &opt) > W * H / 2);
    REQUIRE(al_renderer_set_textures(renderer, NULL, 0, 0) == AL_OK);
    al_renderer_set_lightmap(renderer, NULL);
    al_renderer_set_scene(renderer, NULL);
    al_rad_lightmap_free(&map);
    room_free(&r);
}

CHECK_TEST(lines_unlit, "/render/lit/lines-keep-their-own-colour-in-a-lit-frame")
{
    /* Oracle: an entity box's edges are drawn in the colour of their vertices, with no
     * lightmap, texture or shading, whatever the frame's faces show: in a lit, textured
     * frame (a lightmap of uniform level 60, so that lit colours differ from the vertex
     * colours) the pixels of the light's box edges have exactly the edges' colour, as in
     * an unlit frame. (A line's vertices hold only a position and a colour: the colour
     * must reach the pixels, and nothing else may change it.) */
    if (!renderer) {
        check_skip("no offscreen OpenGL 3.3 context");
        return;
    }
    lit_room r;
    REQUIRE(room_load(&r, true, false));
    const al_mesh *box = NULL;
    for (int e = 0; e < r.scene->entity_count && !box; e++)
        if (r.scene->entities[e]->line_count > 0) box = r.scene->entities[e];
    REQUIRE(box);
    const uint8_t *edge = box->lines[0].colour;
    al_rad_lightmap map = {0};
    REQUIRE(al_rad_snapshot(r.rad, &map) == AL_OK);
    for (int t = 0; t < map.width * map.height; t++)
        for (int k = 0; k < 3; k++) map.texels[t][k] = 60;
    static uint8_t texels[64 * 64 * 4];
    quadrant_texture(texels);
    al_texture_image image = {.name = "STONE", .width = 64, .height = 64, .rgba = texels};
    al_renderer_set_scene(renderer, r.scene);
    al_camera cam;
    al_camera_init(&cam, AL_VIEW_3D);
    cam.width = W, cam.height = H;
    /* Some 90 units east of the light, looking west at it. */
    cam.position[0] = -ROOM_X + 150, cam.position[1] = 0, cam.position[2] = 0;
    cam.yaw = 180;
    al_draw_options opt;
    al_draw_options_init(&opt);
    opt.overlays = AL_OVERLAY_ENTITIES;
    int exact[2] = {0, 0};
    for (int lit = 0; lit < 2; lit++) {
        REQUIRE(al_renderer_set_textures(renderer, lit ? &image : NULL, lit, 0) == AL_OK);
        REQUIRE(al_renderer_set_lightmap(renderer, lit ? &map : NULL) == AL_OK);
        al_draw_stats st;
        draw(&cam, &opt, &st);
        CHECK(st.lightmapped == lit);
        for (int i = 0; i < W * H; i++)
            exact[lit] += pixels[4 * i] == edge[0] && pixels[4 * i + 1] == edge[1] &&
                          pixels[4 * i + 2] == edge[2];
    }
    check_note("pixels of the box edges' colour: %d unlit, %d lit", exact[0], exact[1]);
    CHECK(exact[0] > 20 && exact[1] >= exact[0] * 9 / 10);
    al_renderer_set_textures(renderer, NULL, 0, 0);
    al_renderer_set_lightmap(renderer, NULL);
    al_renderer_set_scene(renderer, NULL);
    al_rad_lightmap_free(&map);
    room_free(&r);
}

/* What R draws from CAM into PIXELS_OUT. */
static void draw_with(al_renderer *r, const al_camera *cam, const al_draw_options *opt,
                      uint8_t *pixels_out)
{
    al_renderer_draw(r, cam, opt, NULL);
    REQUIRE(al_offscreen_read(off, pixels));
    memcpy(pixels_out, pixels, sizeof pixels);
}

CHECK_TEST(shared_textures, "/render/lit/renderers-sharing-a-store-share-a-texture-set")
{
    /* Oracle: each picture is what a renderer with a copy of its own (key 0) draws. The
     * views of a window are given the same set under one key: one copy is made. */
    if (!renderer) {
        check_skip("no offscreen OpenGL 3.3 context");
        return;
    }
    lit_room r;
    REQUIRE(room_load(&r, true, false));
    static uint8_t texels[64 * 64 * 4], other_texels[64 * 64 * 4];
    quadrant_texture(texels);
    for (size_t i = 0; i < sizeof texels; i++)
        other_texels[i] = i % 4 == 3 ? 255 : (uint8_t) (255 - texels[i]);
    al_texture_image image = {.name = "STONE", .width = 64, .height = 64, .rgba = texels};
    al_texture_image other = {.name = "STONE", .width = 64, .height = 64, .rgba = other_texels};
    al_camera cam;
    al_draw_options opt;
    close_over_floor(&cam, &opt);
    static uint8_t own[W * H * 4], own_other[W * H * 4], seen[W * H * 4];
    /* The pictures of copies of their own, by the test's renderer. */
    al_renderer_set_scene(renderer, r.scene);
    REQUIRE(al_renderer_set_textures(renderer, &image, 1, 0) == AL_OK);
    draw_with(renderer, &cam, &opt, own);
    REQUIRE(al_renderer_set_textures(renderer, &other, 1, 0) == AL_OK);
    draw_with(renderer, &cam, &opt, own_other);
    CHECK(differing_pixels(own, own_other) > W * H / 2);
    REQUIRE(al_renderer_set_textures(renderer, NULL, 0, 0) == AL_OK);
    al_renderer_set_scene(renderer, NULL);

    char error[256];
    al_renderer *a = al_renderer_create(error, sizeof error);
    REQUIRE(a);
    al_renderer *b = al_renderer_create_sharing(a, error, sizeof error);
    REQUIRE(b);
    al_renderer_set_scene(a, r.scene);
    al_renderer_set_scene(b, r.scene);
    REQUIRE(al_renderer_set_textures(a, &image, 1, 7) == AL_OK);
    int64_t made = al_renderer_texture_sets_made(a);
    REQUIRE(al_renderer_set_textures(b, &image, 1, 7) == AL_OK);
    CHECK_MSG(al_renderer_texture_sets_made(b) == made,
              "a second copy of a set another renderer of the store holds");
    draw_with(b, &cam, &opt, seen);
    CHECK_MSG(differing_pixels(seen, own) == 0, "the shared set draws otherwise than a copy");
    /* The first renderer goes: the set stays with the second. */
    al_renderer_destroy(a);
    draw_with(b, &cam, &opt, seen);
    CHECK_MSG(differing_pixels(seen, own) == 0, "the set went with the renderer that made it");
    /* Other images under another key: a set of their own, which a third renderer shares. */
    REQUIRE(al_renderer_set_textures(b, &other, 1, 8) == AL_OK);
    CHECK(al_renderer_texture_sets_made(b) == made + 1);
    al_renderer *c = al_renderer_create_sharing(b, error, sizeof error);
    REQUIRE(c);
    al_renderer_set_scene(c, r.scene);
    REQUIRE(al_renderer_set_textures(c, &other, 1, 8) == AL_OK);
    CHECK(al_renderer_texture_sets_made(c) == made + 1);
    draw_with(c, &cam, &opt, seen);
    CHECK_MSG(differing_pixels(seen, own_other) == 0, "the third renderer draws otherwise");
    draw_with(b, &cam, &opt, seen);
    CHECK(differing_pixels(seen, own_other) == 0);
    /* The old key's set is gone with its last user: the key makes a new one. */
    REQUIRE(al_renderer_set_textures(b, &image, 1, 7) == AL_OK);
    CHECK(al_renderer_texture_sets_made(b) == made + 2);
    draw_with(b, &cam, &opt, seen);
    CHECK(differing_pixels(seen, own) == 0);
    al_renderer_destroy(b);
    draw_with(c, &cam, &opt, seen);
    CHECK(differing_pixels(seen, own_other) == 0);
    al_renderer_destroy(c);
    room_free(&r);
}

CHECK_TEST(missing_texture_checker, "/render/lit/a-material-without-a-texture-shows-the-checker")
{
    /* With textures given but none for the floor's material, the floor shows the checker
     * (al_texture_checker, eight squares to 64 texels), here unlit: the fixed shading of an
     * upward face times the checker's colours, the same in both squares. */
    if (!renderer) {
        check_skip("no offscreen OpenGL 3.3 context");
        return;
    }
    lit_room r;
    REQUIRE(room_load(&r, true, false));
    static uint8_t texels[64 * 64 * 4], checker[64 * 64 * 4];
    quadrant_texture(texels);
    al_texture_checker(64, checker);
    al_texture_image image = {.name = "brick", .width = 64, .height = 64, .rgba = texels};
    REQUIRE(al_renderer_set_textures(renderer, &image, 1, 0) == AL_OK);
    al_renderer_set_scene(renderer, r.plain_scene);
    al_camera cam;
    al_draw_options opt;
    close_over_floor(&cam, &opt);
    al_draw_stats st;
    draw(&cam, &opt, &st);
    CHECK(st.textured && !st.lightmapped);
    /* The shader's shading of a face looking straight up. */
    double key[3] = {0.35, 0.55, 0.76}, len = sqrt(0.35 * 0.35 + 0.55 * 0.55 + 0.76 * 0.76);
    double shade = 0.52 + 0.38 * fmax(key[2] / len, 0) + 0.16 * fmax(-key[2] / len, 0);
    const double shades[3] = {shade, shade, shade};
    int checked, bad = floor_texel_misses(&cam, checker, 8, 1.0, shades, 3, &checked, NULL);
    check_note("%d pixels checked against the checker", checked);
    CHECK(checked > 1000 && bad == 0);
    REQUIRE(al_renderer_set_textures(renderer, NULL, 0, 0) == AL_OK);
    al_renderer_set_scene(renderer, NULL);
    room_free(&r);
}

CHECK_TEST(faint_textures_2d, "/render/lit/a-2d-view-shows-faint-textures-under-the-outlines")
{
    /* The top view with faint textures: where no outline passes, every pixel is the
     * ceiling's top face (the nearest face, looking down) textured with the fixed shading
     * of an upward face, AL_FAINT_TEXTURE_ALPHA of it over the background. Without the
     * option, or without textures, the picture is the outlines alone, as before. */
    if (!renderer) {
        check_skip("no offscreen OpenGL 3.3 context");
        return;
    }
    lit_room r;
    REQUIRE(room_load(&r, true, false));
    static uint8_t texels[64 * 64 * 4];
    quadrant_texture(texels);
    al_texture_image image = {.name = "stone", .width = 64, .height = 64, .rgba = texels};
    al_renderer_set_scene(renderer, r.plain_scene);
    al_camera cam;
    al_camera_init(&cam, AL_VIEW_TOP);
    cam.width = W, cam.height = H;
    cam.zoom = 1.5;
    al_draw_options opt;
    al_draw_options_init(&opt);
    opt.overlays = 0;
    opt.grid = 0;
    al_draw_stats st;
    draw(&cam, &opt, &st); /* no textures given: outlines */
    static uint8_t outlines[W * H * 4];
    memcpy(outlines, pixels, sizeof outlines);
    REQUIRE(al_renderer_set_textures(renderer, &image, 1, 0) == AL_OK);
    draw(&cam, &opt, &st); /* given, but the option is off */
    CHECK(!st.textured && differing_pixels(outlines, pixels) == 0);
    opt.faint_textures = true;
    draw(&cam, &opt, &st);
    CHECK(st.textured);
    double key[3] = {0.35, 0.55, 0.76}, len = sqrt(0.35 * 0.35 + 0.55 * 0.55 + 0.76 * 0.76);
    double shade = 0.52 + 0.38 * fmax(key[2] / len, 0) + 0.16 * fmax(-key[2] / len, 0);
    const double a = AL_FAINT_TEXTURE_ALPHA;
    /* The outlines of the room in the top view: the walls' inner and outer sides. */
    const double lines_x[4] = {-ROOM_X - 16, -ROOM_X, ROOM_X, ROOM_X + 16};
    const double lines_y[4] = {-ROOM_Y - 16, -ROOM_Y, ROOM_Y, ROOM_Y + 16};
    int checked = 0, bad = 0;
    for (int y = 0; y < H; y += 2)
        for (int x = 0; x < W; x += 2) {
            double o[3], d[3];
            al_camera_ray(&cam, x + 0.5, y + 0.5, o, d);
            if (fabs(o[0]) > ROOM_X + 14 || fabs(o[1]) > ROOM_Y + 14) continue;
            bool near_line = false;
            for (int i = 0; i < 4; i++)
                near_line |= fabs(o[0] - lines_x[i]) < 3 || fabs(o[1] - lines_y[i]) < 3;
            if (near_line || !inside_cell(o, 32, 1.0)) continue;
            int u = ((int) floor(o[0]) % 64 + 64) % 64, v = ((int) floor(-o[1]) % 64 + 64) % 64;
            const uint8_t *texel = texels + 4 * (v * 64 + u);
            const uint8_t *px = pixels + 4 * (y * W + x);
            for (int k = 0; k < 3; k++) {
                double want = fmin(texel[k] * shade, 255) * a + opt.background[k] * 255 * (1 - a);
                if (fabs(px[k] - want) > 3 && bad < 5)
                    check_note("at %g %g: channel %d is %d, want %.1f", o[0], o[1], k, px[k], want);
                bad += fabs(px[k] - want) > 3;
            }
            checked++;
        }
    check_note("%d pixels checked against the faint texture", checked);
    CHECK(checked > 1000 && bad == 0);
    REQUIRE(al_renderer_set_textures(renderer, NULL, 0, 0) == AL_OK);
    draw(&cam, &opt, &st);
    CHECK(!st.textured && differing_pixels(outlines, pixels) == 0);
    al_renderer_set_scene(renderer, NULL);
    room_free(&r);
}

/* The red room: the room with its west wall (the third box) in material "paint", whose
 * texture in a WAD is COLOUR; the materials take their textures' averages
 * (al_texture_sources_colour_materials) and the light runs to 1%. Returns the red over
 * green light on the floor's top face, summed over its luxels; -1 on failure. */
static double floor_red_over_green(const uint8_t colour[3], float paint_colour[3])
{
    static char text[16384];
    room_text(text, sizeof text, true, false);
    char *brush = text;
    for (int i = 0; i < 3 && brush; i++) brush = strstr(brush + 1, "{\n(");
    if (!brush) return -1;
    char *end = strstr(brush, "}\n");
    for (char *p = strstr(brush, "stone"); p && p < end; p = strstr(p, "stone"))
        memcpy(p, "paint", 5);
    scene sc;
    scene_options so = {.pvs = true, .pvs_level = AL_PVS_TIGHT};
    if (!scene_load_text(&sc, text, strlen(text), &so) || !sc.world) return -1;
    /* A 16 x 16 texture of one colour (WAD3: its own palette). */
    static uint8_t indices[16 * 16], palette[768];
    memset(indices, 7, sizeof indices);
    memcpy(palette + 3 * 7, colour, 3);
    al_wad_texture_desc desc = {"paint", 16, 16, indices, palette};
    size_t size = 0;
    uint8_t *bytes = al_wad_write(3, &desc, 1, NULL, &size);
    al_wad *wad = NULL;
    al_diag_list diags = {0};
    double ratio = -1;
    if (bytes && al_wad_read(bytes, size, "paint.wad", NULL, &wad, &diags) == AL_OK) {
        al_texture_sources sources = {.wads = &wad, .count = 1};
        al_material_desc *mats = (al_material_desc *) sc.input.input.materials;
        int coloured =
            al_texture_sources_colour_materials(&sources, mats, sc.input.input.material_count);
        CHECK_MSG(coloured == 1, "%d materials took a texture's colour, expected 1", coloured);
        for (int m = 0; m < sc.input.input.material_count; m++)
            if (strcmp(mats[m].name, "paint") == 0)
                memcpy(paint_colour, mats[m].colour, 3 * sizeof(float));
        al_rad *rad = NULL;
        al_rad_options ro = {0};
        al_rad_lightmap map = {0};
        al_rad_face_map fm;
        if (al_rad_create(sc.world, &sc.input.input, &ro, &rad, &diags) == AL_OK &&
            al_rad_run(rad, 0.01, 120, NULL, NULL) == AL_RAD_STOP_RESIDUAL &&
            al_rad_snapshot(rad, &map) == AL_OK && al_rad_face(rad, 0, 5, &fm)) {
            double sum[3] = {0};
            for (int y = fm.y; y < fm.y + fm.height; y++)
                for (int x = fm.x; x < fm.x + fm.width; x++)
                    for (int k = 0; k < 3; k++) sum[k] += map.texels[y * map.width + x][k];
            ratio = sum[0] / sum[1];
        }
        al_rad_lightmap_free(&map);
        al_rad_destroy(rad);
    }
    al_wad_free(wad);
    free(bytes);
    al_diag_list_clear(&diags);
    scene_free(&sc);
    return ratio;
}

CHECK_TEST(texture_tints_bounce, "/render/lit/a-red-textured-wall-tints-the-light-it-bounces")
{
    /* A material nobody gave a colour reflects its texture's average colour: the west wall
     * with a red texture sends red light onto the floor, the same wall with a grey texture
     * does not. The light is white, so the floor's red over green rises only by the
     * bounce. */
    float red_colour[3], grey_colour[3];
    double red = floor_red_over_green((const uint8_t[3]){220, 40, 30}, red_colour);
    double grey = floor_red_over_green((const uint8_t[3]){110, 110, 110}, grey_colour);
    check_note("paint colour %.3f %.3f %.3f: floor red / green %.4f; grey paint: %.4f",
               red_colour[0], red_colour[1], red_colour[2], red, grey);
    REQUIRE(red > 0 && grey > 0);
    CHECK(fabsf(red_colour[0] - 220 / 255.0f) < 1e-6f &&
          fabsf(red_colour[1] - 40 / 255.0f) < 1e-6f);
    CHECK(fabsf(grey_colour[0] - grey_colour[1]) < 1e-6f);
    CHECK_MSG(red > grey * 1.05, "the red wall's bounce should redden the floor: %.4f against %.4f",
              red, grey);
}

int main(int argc, char **argv)
{
    char error[256];
    off = al_offscreen_create(W, H, error, sizeof error);
    if (off) renderer = al_renderer_create(error, sizeof error);
    if (!off || !renderer) {
        check_note("offscreen GL unavailable: %s", error);
        al_offscreen_destroy(off);
        off = NULL;
        renderer = NULL;
    }
    int status = check_main(argc, argv);
    al_renderer_destroy(renderer);
    al_offscreen_destroy(off);
    return status;
}
