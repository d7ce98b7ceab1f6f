/* The compile thread's half of a document compile (see allium-compile-job.h).
 *
 * Workload: the whole map per job. A cache hit costs loading the world's bytes and
 * rebuilding visibility (the cache holds the trees, not the PVS); after an edit, the
 * blocks it touched are built and the rest shared with the current snapshot's world
 * (e1m1: 73 ms median for one brush, see allium-bench edit); otherwise the whole map is
 * compiled. Visibility is rebuilt whole each time, with the coarse PVS (a flood through
 * the portals: conservative; e1m1 about 170 ms with the portals). Then
 * the radiosity solver's patches and the direct light (e1m1: 80 and 160 ms; lq-e3m4: 210
 * and 330 ms on two cores), and the polygons of every brush and the scene's meshes, a few
 * milliseconds even for large maps. */
#include "allium-config.h"

#include "allium-compile-job.h"

#include <stdlib.h>
#include <string.h>

AlliumCompileJob *allium_compile_job_new(guint64 generation)
{
    AlliumCompileJob *job = g_new0(AlliumCompileJob, 1);
    job->generation = generation;
    job->options.pvs = AL_PVS_COARSE;
    /* Visibility is built after the trees (build_vis), leaving out the PVS of a leaking
     * map. */
    job->options.no_vis = TRUE;
    job->requested_us = g_get_monotonic_time();
    return job;
}

void allium_compile_job_free(AlliumCompileJob *job)
{
    if (!job) return;
    al_doc_input_free(&job->input);
    al_diag_list_clear(&job->input_diags);
    free(job->cached);
    free(job->cached_light);
    free(job->store);
    /* The lightmap holds the snapshot too. */
    allium_lightmap_unref(job->lightmap);
    allium_snapshot_unref(job->snapshot);
    allium_snapshot_unref(job->previous);
    allium_snapshot_unref(job->previous_base);
    g_free(job);
}

/* Portals, leak and coarse PVS; a map that leaks gets no PVS: with the void's leaves in
 * it even the coarse pass takes e1m1 from 70 to 600 ms, for an answer of no use (its
 * rows would be everything). The portals of blocks the edit left alone come from the
 * previous world. */
static al_status build_vis(AlliumCompileJob *job, al_world *world, const al_input *input)
{
    al_vis_options vis = {
        .level = job->options.pvs,
        .threads = job->options.threads,
        .no_pvs_if_leaking = TRUE,
        .previous = job->previous ? job->previous->world : NULL,
    };
    return al_world_build_vis_with(world, input, &vis);
}

/* The world from the cached bytes with its visibility rebuilt, or NULL when the bytes
 * are damaged (the job then compiles and replaces them). */
static al_world *load_cached_world(AlliumCompileJob *job, const al_input *input)
{
    al_world *world = NULL;
    al_diag_list why = {0};
    al_status st = al_world_load(job->cached, job->cached_size, &world, &why);
    al_diag_list_clear(&why);
    g_clear_pointer(&job->cached, free);
    if (st != AL_OK) {
        job->cache_damaged = TRUE;
        return NULL;
    }
    /* So that the next edit's compile can update it rather than compile it whole. */
    (void) al_world_adopt_input(world, input);
    if (build_vis(job, world, input) != AL_OK) {
        al_world_destroy(world);
        return NULL;
    }
    return world;
}

static void compile_world(AlliumCompileJob *job, AlliumSnapshot *snap)
{
    const al_input *input = &snap->input.input;
    gint64 t0 = g_get_monotonic_time();

    /* The document fetches the cache only when there is no world to update. */
    if (job->cached) {
        snap->world = load_cached_world(job, input);
        snap->from_cache = snap->world != NULL;
    }
    if (!snap->world) {
        al_diag_list errors = {0};
        const al_world *prev = job->previous ? job->previous->world : NULL;
        if (prev) snap->status = al_world_update(prev, input, &job->options, &snap->world, &errors);
        else snap->status = al_world_compile(input, &job->options, &snap->world, &errors);
        al_diag_append(&snap->diags, &errors);
        al_diag_list_clear(&errors);
        if (snap->world && build_vis(job, snap->world, input) != AL_OK) {
            snap->status = AL_ERR_NOMEM;
            g_clear_pointer(&snap->world, al_world_destroy);
        }
        /* Only a fresh compile is worth storing; the main thread writes it. */
        if (snap->world && job->key[0] && job->store_now &&
            al_world_save(snap->world, &job->store, &job->store_size) != AL_OK) {
            job->store = NULL;
            job->store_size = 0;
        }
    }
    if (snap->world) {
        al_diag_append(&snap->diags, al_world_diagnostics(snap->world));
        al_world_stats stats;
        al_world_get_stats(snap->world, &stats);
        snap->blocks = stats.blocks;
        snap->blocks_built = stats.blocks_built;
        al_vis_stats vis;
        al_world_vis_stats(snap->world, &vis);
        g_debug("world: brushes %.1f, expand %.1f, blocks %.1f, total %.1f ms (%d of %d blocks built, %d brushes copied), portals "
                "%.1f ms, coarse PVS %.1f ms",
                stats.ms_brushes, stats.ms_expand, stats.ms_blocks, stats.ms_total, stats.blocks_built, stats.blocks, stats.brushes_copied,
                vis.ms_portals, vis.ms_coarse);
    }
    snap->ms_compile = (double) (g_get_monotonic_time() - t0) / 1000.0;
}

/* Makes the solver of SNAP's world and, with SHOOT, shoots the light sources but the sky
 * dome, so that the map shows lit the moment it is published. After an edit the solver
 * carries the previous snapshot's light on (al_rad_update): its direct light is corrected
 * here, and the light job corrects the bounced light before it shoots any further; the
 * snapshot whose solver that reads is kept in light_base meanwhile. Light entities'
 * problems (a light in solid, a missing target) join the snapshot's diagnostics. A map
 * that emits no light gets no solver: an all-black lightmap would only hide the map.
 * Without SHOOT the light job shoots them (the view shows the solver's ambient term until
 * then). */
static void light_world(AlliumCompileJob *job, AlliumSnapshot *snap, gboolean shoot,
                        const void *cached, size_t cached_size)
{
    if (!snap->world) return;
    gint64 t0 = g_get_monotonic_time();
    al_diag_list diags = {0};
    al_rad_options options = {0};
    al_rad *prev = job->previous && !cached ? job->previous->rad : NULL;
    al_status st = al_rad_update(prev, snap->world, &snap->input.input, &options, &snap->rad, &diags);
    al_diag_append(&snap->diags, &diags);
    al_diag_list_clear(&diags);
    if (st != AL_OK) {
        snap->rad = NULL;
        return;
    }
    /* The light this very input had when it was last lit: shown at once, and the light
     * job goes on from it. Bytes of other patches are refused, and it is lit anew. */
    if (cached && al_rad_restore(snap->rad, cached, cached_size) == AL_OK) {
        snap->light_from_cache = TRUE;
        shoot = FALSE;
    }
    al_rad_stats stats;
    al_rad_get_stats(snap->rad, &stats);
    snap->lights = stats.lights;
    /* The sky dome's suns (64 rays a luxel) are left to the light job, unless they are all
     * the light there is. A carried-on solver has only new lights left to shoot. */
    int first = (stats.lights - stats.dome_lights) - (stats.lights_shot - stats.dome_lights_shot);
    int left = stats.lights - stats.lights_shot;
    if (shoot && left > 0) {
        al_rad_step(snap->rad, first > 0 ? first : left);
        al_rad_get_stats(snap->rad, &stats);
    }
    if (!(stats.emitted > 0) && (shoot || stats.lights == 0 || snap->light_from_cache))
        g_clear_pointer(&snap->rad, al_rad_destroy);
    /* Whichever solver the corrections read stays alive with its snapshot. */
    const al_rad *base = snap->rad ? al_rad_base(snap->rad) : NULL;
    if (base && job->previous && base == job->previous->rad)
        snap->light_base = allium_snapshot_ref(job->previous);
    else if (base && job->previous_base && base == job->previous_base->rad)
        snap->light_base = allium_snapshot_ref(job->previous_base);
    else
        g_assert(base == NULL);
    snap->ms_light = (double) (g_get_monotonic_time() - t0) / 1000.0;
}

void allium_compile_job_run(AlliumCompileJob *job)
{
    g_return_if_fail(job->snapshot == NULL);

    AlliumSnapshot *snap = allium_snapshot_new(&job->input, job->generation);
    al_diag_append(&snap->diags, &job->input_diags);
    g_strlcpy(snap->cache_key, job->key, sizeof snap->cache_key);
    g_strlcpy(snap->light_key, job->light_key, sizeof snap->light_key);
    job->snapshot = snap;

    compile_world(job, snap);
    gint64 t_world = g_get_monotonic_time();
    light_world(job, snap, !job->light_later, job->cached_light, job->cached_light_size);
    g_clear_pointer(&job->cached_light, free);
    /* The previous world is not needed any longer: its shared blocks live on in ours, and
     * light_base keeps what the light still reads. */
    g_clear_pointer(&job->previous, allium_snapshot_unref);
    g_clear_pointer(&job->previous_base, allium_snapshot_unref);

    /* Polygons and scene are built even when the compile failed: the designer still sees
     * the brushes, and the diagnostics say what is wrong. */
    if (al_face_polys_build(&snap->input.input, &snap->polys) == AL_OK) {
        al_scene_desc desc = {
            .input = &snap->input.input,
            .polys = &snap->polys,
            .world = snap->world,
            .material_colours = snap->input.material_colours,
            .rad = snap->rad,
        };
        if (al_scene_build(&desc, &snap->scene) != AL_OK) snap->scene = NULL;
    }
    allium_snapshot_index_rows(snap);
    /* Published before its light: drawn with the plain shading until the light job's
     * first lightmap arrives. */
    if (snap->rad && snap->scene && (!job->light_later || snap->light_from_cache))
        job->lightmap = allium_lightmap_new(snap);
    gint64 t_end = g_get_monotonic_time();
    snap->ms_total = (double) (t_end - job->requested_us) / 1000.0;
    g_debug("compile %" G_GUINT64_FORMAT ": %.1f ms on the main thread and in the queue, "
            "world %.1f ms (%s), light %.1f ms (%s), polygons and scene %.1f ms",
            job->generation,
            (double) (t_world - job->requested_us) / 1000.0 - snap->ms_compile,
            snap->ms_compile, snap->from_cache ? "cache" : "compiled", snap->ms_light,
            snap->light_from_cache ? "cache" : "shot", (double) (t_end - t_world) / 1000.0 - snap->ms_light);
}
