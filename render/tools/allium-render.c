/* allium-render: draw a compiled map into a PNG with the editor's renderer, offscreen
 * (EGL, no display needed). For screenshots, for looking at what the compiler made from
 * the command line, and for the render tests.
 *
 *   allium-render [options] MAP -o OUT.png
 *
 * Options: --size WxH (default 1280x720), --view 3d|top|front|side, --camera X Y Z YAW
 * PITCH (3D; default: at the first info_player_start, else the whole map framed),
 * --frame (frame the whole map), --overlay LIST (comma-separated: portals, leak, pvs,
 * cluster, entities, tools, wireframe, nocull; "none" for no overlays), --grid N,
 * --select-brush N (repeatable), --json (print the frame's statistics), --frames N (draw
 * N frames turning the camera a full circle and print the median and 95th percentile
 * frame times, glFinish included, as JSON), plus the
 * compile options of allium-compile (--hull, --block-size, --threads, --pvs).
 *
 * Exit status: 0 written, 1 the map or the GL context failed, 2 usage. */
#include "al-offscreen.h"
#include "al-render.h"
#include "load.h"
#include "core/clock.h"
#include "materials/material-defaults.h"

#include <epoxy/gl.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static int usage(void)
{
    fprintf(stderr, "usage: allium-render [--size WxH] [--view 3d|top|front|side] "
                    "[--camera X Y Z YAW PITCH] [--frame] [--overlay LIST] [--grid N] "
                    "[--select-brush N] [--json] [compile options] MAP -o OUT.png\n");
    return 2;
}

static bool parse_overlays(const char *list, unsigned *overlays, bool *wireframe, bool *nocull)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"portals", AL_OVERLAY_PORTALS}, {"leak", AL_OVERLAY_LEAK},
                 {"pvs", AL_OVERLAY_PVS},         {"cluster", AL_OVERLAY_CLUSTER},
                 {"entities", AL_OVERLAY_ENTITIES}, {"tools", AL_OVERLAY_TOOLS}};
    *overlays = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        bool known = false;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp(tok, names[i].name) == 0) *overlays |= names[i].bit, known = true;
        if (strcmp(tok, "wireframe") == 0) *wireframe = known = true;
        if (strcmp(tok, "nocull") == 0) *nocull = known = true;
        if (strcmp(tok, "none") == 0) known = true;
        if (!known) {
            fprintf(stderr, "allium-render: unknown overlay '%s'\n", tok);
            return false;
        }
    }
    return true;
}

/* The eye of the first info_player_start (22 units above its origin, Quake's view
 * height), looking along its angle. */
static bool player_start(const al_input *in, al_camera *cam)
{
    for (int e = 0; e < in->entity_count; e++) {
        const al_entity_desc *ed = &in->entities[e];
        if (!ed->classname || strcmp(ed->classname, "info_player_start") != 0) continue;
        double o[3] = {0, 0, 0}, angle = 0;
        bool has_origin = false;
        for (int p = 0; p < ed->property_count; p++) {
            if (strcmp(ed->properties[p].key, "origin") == 0)
                has_origin = sscanf(ed->properties[p].value, "%lf %lf %lf", &o[0], &o[1], &o[2]) == 3;
            if (strcmp(ed->properties[p].key, "angle") == 0) angle = atof(ed->properties[p].value);
        }
        if (!has_origin) continue;
        memcpy(cam->position, o, sizeof o);
        cam->position[2] += 22;
        cam->yaw = angle;
        cam->pitch = 0;
        return true;
    }
    return false;
}

int main(int argc, char **argv)
{
    al_tool_options options = {.use_cache = true, .pvs = AL_PVS_COARSE};
    const char *path = NULL, *out = NULL;
    int width = 1280, height = 720;
    al_view_kind kind = AL_VIEW_3D;
    bool has_camera = false, frame = false, json = false;
    int frames = 0;
    double cam_args[5] = {0};
    al_draw_options opt;
    al_draw_options_init(&opt);
    int32_t selected[64];
    for (int i = 1; i < argc; i++) {
        int used = al_tool_parse_option(argc, argv, &i, &options);
        if (used < 0) return 2;
        if (used) continue;
        const char *a = argv[i];
        bool more = i + 1 < argc;
        if (strcmp(a, "-o") == 0 && more) out = argv[++i];
        else if (strcmp(a, "--size") == 0 && more) {
            if (sscanf(argv[++i], "%dx%d", &width, &height) != 2) return usage();
        } else if (strcmp(a, "--view") == 0 && more) {
            const char *v = argv[++i];
            kind = strcmp(v, "top") == 0     ? AL_VIEW_TOP
                   : strcmp(v, "front") == 0 ? AL_VIEW_FRONT
                   : strcmp(v, "side") == 0  ? AL_VIEW_SIDE
                                             : AL_VIEW_3D;
        } else if (strcmp(a, "--camera") == 0 && i + 5 < argc) {
            for (int k = 0; k < 5; k++) cam_args[k] = atof(argv[++i]);
            has_camera = true;
        } else if (strcmp(a, "--frame") == 0) frame = true;
        else if (strcmp(a, "--json") == 0) json = true;
        else if (strcmp(a, "--frames") == 0 && more) frames = atoi(argv[++i]);
        else if (strcmp(a, "--grid") == 0 && more) opt.grid = atof(argv[++i]);
        else if (strcmp(a, "--overlay") == 0 && more) {
            if (!parse_overlays(argv[++i], &opt.overlays, &opt.wireframe, &opt.no_cull))
                return 2;
        } else if (strcmp(a, "--select-brush") == 0 && more) {
            if (opt.selected_brush_count < 64) selected[opt.selected_brush_count++] = atoi(argv[++i]);
        } else if (a[0] == '-') return usage();
        else path = a;
    }
    if (!path || !out) return usage();
    opt.selected_brushes = selected;

    al_tool_map m;
    if (!al_tool_load(path, &options, &m)) return 1;
    al_world *world = al_tool_compile(&m, &options);
    if (!world) {
        al_tool_map_free(&m);
        return 1;
    }
    int status = 1;
    al_face_polys polys = {0};
    al_scene *scene = NULL;
    al_offscreen *off = NULL;
    al_renderer *r = NULL;
    float (*colours)[3] = calloc((size_t) m.input.material_count + 1, sizeof *colours);
    if (!colours || al_face_polys_build(&m.input, &polys) != AL_OK) goto done;
    for (int i = 0; i < m.input.material_count; i++) {
        if (m.doc) memcpy(colours[i], m.doc_input.material_colours[i], sizeof colours[i]);
        else al_material_default_colour(m.input.materials[i].name, colours[i]);
    }
    al_scene_desc desc = {.input = &m.input, .polys = &polys, .world = world,
                          .material_colours = (const float (*)[3]) colours};
    if (al_scene_build(&desc, &scene) != AL_OK) {
        fprintf(stderr, "allium-render: out of memory building the scene\n");
        goto done;
    }
    char error[256];
    off = al_offscreen_create(width, height, error, sizeof error);
    if (!off) {
        fprintf(stderr, "allium-render: %s\n", error);
        goto done;
    }
    r = al_renderer_create(error, sizeof error);
    if (!r) {
        fprintf(stderr, "allium-render: %s\n", error);
        goto done;
    }
    al_renderer_set_scene(r, scene);
    al_camera cam;
    al_camera_init(&cam, kind);
    cam.width = width;
    cam.height = height;
    double mins[3], maxs[3];
    bool bounded = al_scene_bounds(scene, mins, maxs);
    if (has_camera) {
        memcpy(cam.position, cam_args, sizeof cam.position);
        cam.yaw = cam_args[3];
        cam.pitch = cam_args[4];
    } else if (frame || kind != AL_VIEW_3D || !player_start(&m.input, &cam)) {
        if (kind == AL_VIEW_3D) cam.yaw = 45, cam.pitch = -30;
        if (bounded) al_camera_frame(&cam, mins, maxs);
    }
    al_draw_stats st;
    if (frames > 0) {
        double *ms = calloc((size_t) frames, sizeof *ms);
        long drawn = 0;
        if (!ms) goto done;
        double yaw0 = cam.yaw;
        for (int f = 0; f < frames; f++) {
            cam.yaw = yaw0 + 360.0 * f / frames;
            uint64_t t0 = al_clock_ns();
            al_renderer_draw(r, &cam, &opt, &st);
            glFinish();
            ms[f] = (al_clock_ns() - t0) * 1e-6;
            drawn += st.faces_drawn;
        }
        qsort(ms, (size_t) frames, sizeof *ms, compare_double);
        printf("{\"frames\":%d,\"width\":%d,\"height\":%d,\"frame_ms\":{\"median\":%.2f,"
               "\"p95\":%.2f},\"faces_drawn_mean\":%.0f}\n",
               frames, width, height, ms[frames / 2], ms[(int) (frames * 0.95)],
               (double) drawn / frames);
        free(ms);
        cam.yaw = yaw0;
    }
    al_renderer_draw(r, &cam, &opt, &st);
    if (!al_offscreen_save_png(off, out)) {
        fprintf(stderr, "allium-render: cannot write %s\n", out);
        goto done;
    }
    if (json) {
        al_scene_stats ss;
        al_scene_get_stats(scene, &ss);
        printf("{\"faces\":%d,\"triangles\":%d,\"portals\":%d,\"faces_drawn\":%d,"
               "\"faces_culled_pvs\":%d,\"faces_culled_frustum\":%d,\"camera_leaf\":%d,"
               "\"scene_ms\":%.3f,\"draw_cpu_ms\":%.3f}\n",
               ss.faces, ss.triangles, ss.portals, st.faces_drawn, st.faces_culled_pvs,
               st.faces_culled_frustum, st.camera_leaf, ss.ms_build, st.cpu_ms);
    }
    status = 0;
done:
    al_renderer_destroy(r);
    al_offscreen_destroy(off);
    al_scene_destroy(scene);
    al_face_polys_free(&polys);
    free(colours);
    al_world_destroy(world);
    al_tool_map_free(&m);
    return status;
}
