/* allium-render: draw a compiled map into a PNG with the editor's renderer, offscreen
 * (EGL, no display needed). For screenshots, for looking at what the compiler made from
 * the command line, and for the render tests.
 *
 *   allium-render [options] MAP -o OUT.png
 *
 * Options: --size WxH (default 1280x720), --view 3d|top|front|side, --camera X Y Z YAW
 * PITCH (3D; default: at the first info_player_start, else the whole map framed),
 * --frame (frame the whole map), --overlay LIST (comma-separated: portals, leak, pvs,
 * cluster, entities, light-radii, tools, splits (of the block around the camera), wireframe,
 * nocull; "none" for no overlays), --grid N,
 * --select-brush N (repeatable), --json (print the frame's statistics), --frames N (draw
 * N frames turning the camera a full circle and print the median and 95th percentile
 * frame times, glFinish included, and the samples per pixel that passed the depth test
 * (shaded and written: the overdraw, whatever the machine's load), as JSON), plus the
 * compile options of allium-compile (--hull, --block-size, --threads, --pvs).
 *
 * Lighting: --rad lights the map with the radiosity solver (al-rad.h) before drawing: the
 * direct light, then shots until the residual is at most --rad-residual EPS (default 0.01)
 * or --rad-time SECONDS have passed (default: no limit); --luxel UNITS sets the lightmap
 * texel size (default: the map's, or 16); --extra N takes the direct light at N x N points
 * of each luxel (1 to 4; default: the map's, or 1); --rad-no-ambient leaves out the solver's
 * ambient estimate of the light not yet shot. Each of these implies --rad. --unlit draws
 * without the lightmap (for comparison). With --json the report gains a "rad" object.
 *
 * Textures: --textures draws the materials' textures from the WADs of the worldspawn
 * "wad" key (data/textures/sources.h: beside the map, then in each --texture-path DIR,
 * which implies --textures); with --json the report gains "textures_found" and
 * "textures_missing".
 *
 * Exit status: 0 written, 1 the map or the GL context failed, 2 usage. */
#include "al-offscreen.h"
#include "al-render.h"
#include "load.h"
#include "al-clock.h"
#include "materials/material-defaults.h"
#include "textures/sources.h"

#include <epoxy/gl.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Opens the WADs of IN's worldspawn "wad" key (beside the map at PATH, then in SEARCH) into
 * OUT and gives the materials nobody chose a colour for their textures' average colours
 * (al_texture_sources_colour_materials): the light reflects them. */
static bool open_textures(const char *path, al_input *in, const char *const *search,
                          int search_count, al_texture_sources *out)
{
    const char *wad = NULL;
    for (int i = 0; in->entity_count > 0 && i < in->entities[0].property_count; i++)
        if (strcmp(in->entities[0].properties[i].key, "wad") == 0)
            wad = in->entities[0].properties[i].value;
    char folder[4096];
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(folder, sizeof folder, ".");
    al_diag_list diags = {0};
    al_status st = al_texture_sources_open(out, wad, folder, search, search_count, NULL, &diags);
    for (size_t i = 0; i < diags.count; i++)
        fprintf(stderr, "allium-render: %s\n", diags.items[i].message);
    al_diag_list_clear(&diags);
    if (st != AL_OK) return false;
    al_texture_sources_colour_materials(out, (al_material_desc *) in->materials,
                                        in->material_count);
    return true;
}

/* Uploads the textures of IN's materials from SOURCES; counts what was found and missed. */
static void upload_textures(al_renderer *r, const al_texture_sources *sources, const al_input *in,
                            int *found, int *missing)
{
    *found = *missing = 0;
    al_texture_image *images = calloc((size_t) in->material_count + 1, sizeof *images);
    for (int m = 0; images && m < in->material_count; m++) {
        const al_texture *t = al_texture_sources_find(sources, in->materials[m].name, NULL);
        if (!t) {
            ++*missing;
            continue;
        }
        images[(*found)++] = (al_texture_image){
            .name = in->materials[m].name, .width = t->width, .height = t->height, .rgba = t->rgba};
    }
    al_status st = images ? al_renderer_set_textures(r, images, *found, 0) : AL_ERR_NOMEM;
    if (st != AL_OK)
        fprintf(stderr, "allium-render: the textures could not be uploaded: %s\n",
                al_status_message(st));
    free(images);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static int usage(void)
{
    fprintf(stderr, "usage: allium-render [--size WxH] [--view 3d|top|front|side] "
                    "[--camera X Y Z YAW PITCH] [--frame] [--overlay LIST] [--grid N] "
                    "[--select-brush N] [--json] [--rad] [--rad-residual EPS] "
                    "[--rad-time SECONDS] [--luxel UNITS] [--extra N] [--rad-no-ambient] [--unlit] "
                    "[--textures] "
                    "[--texture-path DIR ...] "
                    "[compile options] "
                    "MAP -o OUT.png\n");
    return 2;
}

static bool parse_overlays(const char *list, unsigned *overlays, bool *wireframe, bool *nocull)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"portals", AL_OVERLAY_PORTALS},   {"leak", AL_OVERLAY_LEAK},
                 {"pvs", AL_OVERLAY_PVS},           {"cluster", AL_OVERLAY_CLUSTER},
                 {"entities", AL_OVERLAY_ENTITIES}, {"tools", AL_OVERLAY_TOOLS},
                 {"splits", AL_OVERLAY_SPLITS},     {"light-radii", AL_OVERLAY_LIGHT_RADII}};
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

static const char *stop_name(al_rad_stop stop)
{
    switch (stop) {
    case AL_RAD_STOP_RESIDUAL:
        return "residual";
    case AL_RAD_STOP_TIME:
        return "time";
    default:
        return "cancelled";
    }
}

/* What --rad did, for the report. */
typedef struct rad_report {
    al_rad_stats stats;
    al_rad_stop stop;
    double create_ms, direct_ms, run_ms; /* building patches, the lights, the rest */
    int atlas_w, atlas_h;
} rad_report;

/* Lights WORLD: creates the solver, shoots the lights, runs to RESIDUAL or SECONDS and
 * takes the snapshot into MAP. Prints problems; NULL on failure. */
static al_rad *light_map(const char *path, const al_world *world, const al_input *input,
                         const al_rad_options *ro, double residual, double seconds,
                         al_rad_lightmap *map, rad_report *rep)
{
    al_diag_list diags = {0};
    al_rad *rad = NULL;
    uint64_t t0 = al_clock_ns();
    al_status st = al_rad_create(world, input, ro, &rad, &diags);
    al_tool_print_diags(path, &diags, stderr);
    al_diag_list_clear(&diags);
    if (st != AL_OK) {
        fprintf(stderr, "allium-render: radiosity: %s\n", al_status_message(st));
        return NULL;
    }
    rep->create_ms = al_clock_ms_since(t0);
    al_rad_atlas_size(rad, &rep->atlas_w, &rep->atlas_h);
    al_rad_get_stats(rad, &rep->stats);
    t0 = al_clock_ns();
    al_rad_step(rad, rep->stats.lights);
    rep->direct_ms = al_clock_ms_since(t0);
    t0 = al_clock_ns();
    double left = seconds > 0 ? seconds - rep->direct_ms / 1000.0 : 0;
    rep->stop = seconds > 0 && left <= 0
                    ? AL_RAD_STOP_TIME
                    : al_rad_run(rad, residual, seconds > 0 ? left : 0, NULL, NULL);
    rep->run_ms = al_clock_ms_since(t0);
    al_rad_get_stats(rad, &rep->stats);
    if (al_rad_snapshot(rad, map) != AL_OK) {
        fprintf(stderr, "allium-render: out of memory taking the lightmaps\n");
        al_rad_destroy(rad);
        return NULL;
    }
    return rad;
}

int main(int argc, char **argv)
{
    al_tool_options options = {.use_cache = true, .pvs = AL_PVS_COARSE};
    const char *path = NULL, *out = NULL;
    int width = 1280, height = 720;
    al_view_kind kind = AL_VIEW_3D;
    bool has_camera = false, frame = false, json = false;
    bool use_rad = false, unlit = false;
    double rad_residual = 0.01, rad_seconds = 0;
    al_rad_options rad_options = {0};
    int frames = 0;
    double cam_args[5] = {0};
    al_draw_options opt;
    al_draw_options_init(&opt);
    int32_t selected[64];
    bool textures = false;
    const char *texture_paths[64];
    int texture_path_count = 0, textures_found = 0, textures_missing = 0;
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
        } else if (strcmp(a, "--rad") == 0) use_rad = true;
        else if (strcmp(a, "--unlit") == 0) unlit = true;
        else if (strcmp(a, "--textures") == 0)
            textures = true;
        else if (strcmp(a, "--texture-path") == 0 && more) {
            if (texture_path_count == 64) {
                fprintf(stderr, "allium-render: at most 64 --texture-path folders\n");
                return 2;
            }
            texture_paths[texture_path_count++] = argv[++i];
            textures = true;
        } else if (strcmp(a, "--rad-no-ambient") == 0)
            use_rad = rad_options.no_ambient = true;
        else if (strcmp(a, "--rad-residual") == 0 && more) {
            rad_residual = atof(argv[++i]);
            if (!(rad_residual >= 0 && rad_residual <= 1)) {
                fprintf(stderr, "allium-render: --rad-residual %s: expected 0 to 1\n", argv[i]);
                return 2;
            }
            use_rad = true;
        } else if (strcmp(a, "--rad-time") == 0 && more) {
            rad_seconds = atof(argv[++i]);
            if (!(rad_seconds > 0)) {
                fprintf(stderr, "allium-render: --rad-time %s: expected seconds > 0\n", argv[i]);
                return 2;
            }
            use_rad = true;
        } else if (strcmp(a, "--extra") == 0 && more) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 4) {
                fprintf(stderr, "allium-render: --extra %s: expected 1 to 4\n", argv[i]);
                return 2;
            }
            rad_options.extra_samples = (int) n;
            use_rad = true;
        } else if (strcmp(a, "--luxel") == 0 && more) {
            rad_options.luxel_size = atof(argv[++i]);
            if (!(rad_options.luxel_size >= 1 && rad_options.luxel_size <= 1024)) {
                fprintf(stderr, "allium-render: --luxel %s: expected 1 to 1024 units\n", argv[i]);
                return 2;
            }
            use_rad = true;
        } else if (a[0] == '-')
            return usage();
        else path = a;
    }
    if (!path || !out) return usage();
    opt.no_lightmap = unlit;
    opt.selected_brushes = selected;

    al_tool_map m;
    if (!al_tool_load(path, &options, &m)) return 1;
    al_world *world = al_tool_compile(&m, &options);
    if (!world) {
        al_tool_map_free(&m);
        return 1;
    }
    int status = 1;
    al_scene *scene = NULL;
    al_offscreen *off = NULL;
    al_renderer *r = NULL;
    al_rad *rad = NULL;
    al_rad_lightmap lightmap = {0};
    rad_report rep = {0};
    al_texture_sources sources = {0};
    float (*colours)[3] = NULL;
    if (textures && !open_textures(path, &m.input, texture_paths, texture_path_count, &sources)) {
        fprintf(stderr, "allium-render: out of memory opening the textures\n");
        goto done;
    }
    colours = calloc((size_t) m.input.material_count + 1, sizeof *colours);
    if (!colours) goto done;
    for (int i = 0; i < m.input.material_count; i++) {
        if (m.doc) memcpy(colours[i], m.doc_input.material_colours[i], sizeof colours[i]);
        else al_material_default_colour(m.input.materials[i].name, colours[i]);
        /* A texture's average where nobody chose a colour (open_textures). */
        if (textures && al_material_colour_is_default(m.input.materials[i].name, colours[i]))
            memcpy(colours[i], m.input.materials[i].colour, sizeof colours[i]);
    }
    if (use_rad) {
        rad_options.threads = options.threads;
        rad = light_map(path, world, &m.input, &rad_options, rad_residual, rad_seconds,
                        &lightmap, &rep);
        if (!rad) goto done;
    }
    al_scene_desc desc = {.input = &m.input, .world = world,
                          .material_colours = (const float (*)[3]) colours, .rad = rad};
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
    if (textures) upload_textures(r, &sources, &m.input, &textures_found, &textures_missing);
    if (rad && !(rep.stats.emitted > 0)) {
        /* An all-black lightmap helps nobody: say why the picture is not lit. */
        fprintf(stderr, "allium-render: %s has no light sources; drawn unlit\n", path);
    } else if (rad) {
        al_status ls = al_renderer_set_lightmap(r, &lightmap);
        if (ls != AL_OK)
            fprintf(stderr, "allium-render: the %dx%d lightmap could not be uploaded: %s\n",
                    lightmap.width, lightmap.height, al_status_message(ls));
    }
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
    if (opt.overlays & AL_OVERLAY_SPLITS) {
        al_block_splits sp;
        if (al_world_block_splits(world, cam.position, &sp) == AL_OK) {
            if (!al_renderer_set_splits(r, &sp))
                fprintf(stderr, "allium-render: memory ran out for the split planes\n");
            al_block_splits_free(&sp);
        }
    }
    al_draw_stats st;
    if (frames > 0) {
        double *ms = calloc((size_t) frames, sizeof *ms);
        long drawn = 0;
        double passed = 0;
        if (!ms) goto done;
        double yaw0 = cam.yaw;
        /* Samples that passed the depth test: those shaded and written (a hidden fragment
         * rejected early is not counted). Per pixel, the frame's overdraw: unlike its time,
         * it does not depend on what else the machine is doing. */
        GLuint query = 0;
        glGenQueries(1, &query);
        for (int f = 0; f < frames; f++) {
            cam.yaw = yaw0 + 360.0 * f / frames;
            uint64_t t0 = al_clock_ns();
            glBeginQuery(GL_SAMPLES_PASSED, query);
            al_renderer_draw(r, &cam, &opt, &st);
            glEndQuery(GL_SAMPLES_PASSED);
            glFinish();
            ms[f] = (al_clock_ns() - t0) * 1e-6;
            GLuint samples = 0;
            glGetQueryObjectuiv(query, GL_QUERY_RESULT, &samples);
            passed += samples;
            drawn += st.faces_drawn;
        }
        glDeleteQueries(1, &query);
        qsort(ms, (size_t) frames, sizeof *ms, compare_double);
        printf("{\"frames\":%d,\"width\":%d,\"height\":%d,\"frame_ms\":{\"median\":%.2f,"
               "\"p95\":%.2f},\"faces_drawn_mean\":%.0f,\"samples_per_pixel\":%.3f}\n",
               frames, width, height, ms[frames / 2], ms[(int) (frames * 0.95)],
               (double) drawn / frames, passed / frames / ((double) width * height));
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
               "\"scene_ms\":%.3f,\"draw_cpu_ms\":%.3f",
               ss.faces, ss.triangles, ss.portals, st.faces_drawn, st.faces_culled_pvs,
               st.faces_culled_frustum, st.camera_leaf, ss.ms_build, st.cpu_ms);
        if (textures)
            printf(",\"textures_found\":%d,\"textures_missing\":%d,\"drawn_textured\":%s",
                   textures_found, textures_missing, st.textured ? "true" : "false");
        if (rad) {
            const al_rad_stats *rs = &rep.stats;
            if (rad_options.luxel_size > 0)
                printf(",\"rad\":{\"luxel\":%g,", rad_options.luxel_size);
            else
                printf(",\"rad\":{\"luxel\":null,");
            printf("\"patches\":%d,\"shooters\":%d,\"lights\":%d,"
                   "\"lit_faces\":%d,\"atlas_width\":%d,\"atlas_height\":%d,"
                   "\"shots\":%lld,\"rays\":%lld,\"residual\":%.6g,\"stop\":\"%s\","
                   "\"direct_done\":%s,\"converged\":%s,\"emitted\":%.6g,\"absorbed\":%.6g,"
                   "\"escaped\":%.6g,\"create_ms\":%.1f,\"direct_ms\":%.1f,\"run_ms\":%.1f,"
                   "\"drawn_lit\":%s}",
                   rs->patches, rs->shooters, rs->lights, ss.lit_faces, rep.atlas_w, rep.atlas_h,
                   (long long) rs->shots, (long long) rs->rays, rs->residual, stop_name(rep.stop),
                   rs->direct_done ? "true" : "false", rs->converged ? "true" : "false",
                   rs->emitted, rs->absorbed, rs->escaped, rep.create_ms, rep.direct_ms, rep.run_ms,
                   st.lightmapped ? "true" : "false");
        }
        printf("}\n");
    }
    status = 0;
done:
    al_renderer_destroy(r);
    al_offscreen_destroy(off);
    al_scene_destroy(scene);
    al_rad_lightmap_free(&lightmap);
    al_rad_destroy(rad);
    free(colours);
    al_texture_sources_close(&sources);
    al_world_destroy(world);
    al_tool_map_free(&m);
    return status;
}
