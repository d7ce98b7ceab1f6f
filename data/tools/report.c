/* Compile reports (see report.h). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

static cJSON *vec3(const double v[3])
{
    return cJSON_CreateDoubleArray(v, 3);
}

static cJSON *diag_json(const al_diag *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "severity", al_severity_name(d->severity));
    cJSON_AddStringToObject(o, "kind", al_diag_kind_name(d->kind));
    if (d->line > 0) cJSON_AddNumberToObject(o, "line", d->line);
    if (d->column > 0) cJSON_AddNumberToObject(o, "column", d->column);
    if (d->entity >= 0) cJSON_AddNumberToObject(o, "entity", d->entity);
    if (d->brush >= 0) cJSON_AddNumberToObject(o, "brush", d->brush);
    if (d->face >= 0) cJSON_AddNumberToObject(o, "face", d->face);
    cJSON_AddStringToObject(o, "message", d->message);
    return o;
}

cJSON *al_report_json(const al_tool_map *m, const al_world *w, const al_world_stats *s)
{
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    cJSON_AddStringToObject(root, "input", m->path);
    int brushes = m->input.brush_count + m->skipped_brushes;
    cJSON_AddNumberToObject(root, "brushes", brushes);
    cJSON_AddNumberToObject(root, "entities", m->input.entity_count);
    cJSON_AddNumberToObject(root, "invalid_brushes", s->invalid_brushes + m->skipped_brushes);
    cJSON_AddNumberToObject(root, "collision_brushes", s->collision_brushes);
    cJSON_AddNumberToObject(root, "models", s->models);
    cJSON *hulls = cJSON_AddArrayToObject(root, "hulls");
    for (int h = 0; h < al_world_hull_count(w); h++) {
        const al_hull_desc *d = al_world_hull(w, h);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", d->name);
        cJSON_AddItemToObject(o, "mins", vec3(d->mins));
        cJSON_AddItemToObject(o, "maxs", vec3(d->maxs));
        cJSON_AddItemToArray(hulls, o);
    }
    cJSON *stages = cJSON_AddObjectToObject(root, "stages");
    cJSON *read = cJSON_AddObjectToObject(stages, "read");
    cJSON_AddNumberToObject(read, "ms", m->ms_read);
    cJSON *br = cJSON_AddObjectToObject(stages, "brushes");
    cJSON_AddNumberToObject(br, "ms", s->ms_brushes);
    cJSON_AddNumberToObject(br, "valid", s->valid_brushes);
    cJSON *ex = cJSON_AddObjectToObject(stages, "expand");
    cJSON_AddNumberToObject(ex, "ms", s->ms_expand);
    cJSON_AddNumberToObject(ex, "planes", (double) s->expanded_planes);
    cJSON *bsp = cJSON_AddObjectToObject(stages, "bsp");
    cJSON_AddNumberToObject(bsp, "ms", s->ms_expand + s->ms_blocks);
    cJSON_AddNumberToObject(bsp, "nodes", (double) s->onion_nodes);
    cJSON_AddNumberToObject(bsp, "leaves", (double) s->onion_leaves);
    cJSON_AddNumberToObject(bsp, "blocks", s->blocks);
    cJSON_AddNumberToObject(bsp, "planes", s->planes);
    cJSON_AddNumberToObject(bsp, "polys", (double) s->onion_polys);
    cJSON_AddNumberToObject(bsp, "splits", (double) s->onion_splits);
    cJSON_AddNumberToObject(bsp, "max_depth", s->onion_max_depth);
    cJSON_AddNumberToObject(bsp, "mean_depth", s->onion_mean_depth);
    cJSON_AddNumberToObject(bsp, "degenerate_splits", (double) s->onion_degenerate);
    cJSON_AddNumberToObject(bsp, "bevel_nodes", (double) s->bevel_nodes);
    cJSON *cpu = cJSON_AddObjectToObject(bsp, "cpu_ms");
    cJSON_AddNumberToObject(cpu, "csg", s->ms_csg_cpu);
    cJSON_AddNumberToObject(cpu, "map_trees", s->ms_map_trees_cpu);
    cJSON_AddNumberToObject(cpu, "onion", s->ms_onion_cpu);
    cJSON *maps = cJSON_AddArrayToObject(bsp, "map_trees");
    for (int h = 0; h < al_world_hull_count(w); h++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "hull", al_world_hull(w, h)->name);
        cJSON_AddNumberToObject(o, "boundary_polys", (double) s->boundary_polys[h]);
        cJSON_AddNumberToObject(o, "nodes", (double) s->map_nodes[h]);
        cJSON_AddNumberToObject(o, "leaves", (double) s->map_leaves[h]);
        cJSON_AddItemToArray(maps, o);
    }
    al_vis_stats vs;
    al_world_vis_stats(w, &vs);
    cJSON *portals = cJSON_AddObjectToObject(stages, "portals");
    cJSON_AddNumberToObject(portals, "ms", vs.ms_portals);
    cJSON_AddNumberToObject(portals, "portals", vs.portals);
    cJSON_AddNumberToObject(portals, "leaves", vs.vis_leaves);
    cJSON_AddNumberToObject(portals, "all_leaves", vs.all_leaves);
    cJSON_AddNumberToObject(portals, "outside_leaves", vs.outside_leaves);
    cJSON_AddNumberToObject(portals, "seams", vs.seams);
    cJSON *pvs = cJSON_AddObjectToObject(stages, "pvs");
    cJSON_AddStringToObject(pvs, "pass", vs.level == AL_PVS_TIGHT    ? "tight"
                                         : vs.level == AL_PVS_COARSE ? "coarse"
                                                                     : "none");
    cJSON_AddNumberToObject(pvs, "ms", vs.ms_coarse + vs.ms_tight);
    cJSON_AddNumberToObject(pvs, "coarse_ms", vs.ms_coarse);
    cJSON_AddNumberToObject(pvs, "tight_ms", vs.ms_tight);
    cJSON_AddNumberToObject(pvs, "avg_visible_leaves",
                            vs.level == AL_PVS_TIGHT ? vs.avg_visible_tight : vs.avg_visible_coarse);
    cJSON_AddNumberToObject(pvs, "avg_visible_leaves_coarse", vs.avg_visible_coarse);
    cJSON_AddNumberToObject(pvs, "threads", vs.threads);
    cJSON_AddBoolToObject(pvs, "stored", vs.pvs_stored);
    al_leak_info leak;
    if (al_world_leak(w, &leak)) {
        cJSON *o = cJSON_AddObjectToObject(root, "leak");
        cJSON_AddNumberToObject(o, "entity", leak.entity);
        cJSON_AddStringToObject(o, "classname", leak.classname);
        cJSON *path = cJSON_AddArrayToObject(o, "path");
        for (int i = 0; i < leak.point_count; i++) cJSON_AddItemToArray(path, vec3(leak.points[i]));
    } else {
        cJSON_AddNullToObject(root, "leak");
    }
    cJSON_AddNumberToObject(root, "compile_ms", s->ms_total);
    if (m->doc) {
        cJSON *cache = cJSON_AddObjectToObject(root, "cache");
        cJSON_AddStringToObject(cache, "result", m->cache ? m->cache : "not used");
        cJSON_AddNumberToObject(cache, "ms", m->ms_cache);
        cJSON_AddNumberToObject(cache, "bytes", (double) m->cache_bytes);
    }
    cJSON_AddNumberToObject(root, "peak_rss_kb", (double) al_tool_peak_rss_kb());
    cJSON *diags = cJSON_AddArrayToObject(root, "diagnostics");
    for (size_t i = 0; i < m->diags.count; i++)
        cJSON_AddItemToArray(diags, diag_json(&m->diags.items[i]));
    const al_diag_list *wd = al_world_diagnostics(w);
    for (size_t i = 0; i < wd->count; i++) cJSON_AddItemToArray(diags, diag_json(&wd->items[i]));
    return root;
}

void al_report_text(const al_tool_map *m, const al_world *w, FILE *to)
{
    al_world_stats s;
    al_world_get_stats(w, &s);
    const al_diag_list *wd = al_world_diagnostics(w);
    al_tool_print_diags(m->path, &m->diags, to);
    al_tool_print_diags(m->path, wd, to);
    int invalid = s.invalid_brushes + m->skipped_brushes;
    fprintf(to, "%s: %d entities, %d brushes (%d invalid, %d solid for agents), %d models\n",
            m->path, m->input.entity_count, m->input.brush_count + m->skipped_brushes,
            invalid, s.collision_brushes, s.models);
    fprintf(to, "  hulls:");
    for (int h = 0; h < al_world_hull_count(w); h++) {
        const al_hull_desc *d = al_world_hull(w, h);
        fprintf(to, " %s (%g %g %g, %g %g %g)", d->name, d->mins[0], d->mins[1], d->mins[2],
                d->maxs[0], d->maxs[1], d->maxs[2]);
    }
    fprintf(to, "\n");
    fprintf(to, "  onion BSP: %lld nodes, %lld leaves in %d blocks; depth max %d, mean %.1f\n",
            (long long) s.onion_nodes, (long long) s.onion_leaves, s.blocks, s.onion_max_depth,
            s.onion_mean_depth);
    fprintf(to, "  boundary polygons:");
    for (int h = 0; h < al_world_hull_count(w); h++)
        fprintf(to, " %s %lld", al_world_hull(w, h)->name, (long long) s.boundary_polys[h]);
    fprintf(to, "; %lld split by the onion build\n", (long long) s.onion_splits);
    al_vis_stats vs;
    al_world_vis_stats(w, &vs);
    fprintf(to, "  visibility: %d portals, %d vis leaves (%d of the void dropped); PVS %s, "
                "%.1f leaves visible on average\n",
            vs.portals, vs.vis_leaves, vs.outside_leaves,
            vs.level == AL_PVS_TIGHT ? "tight" : vs.level == AL_PVS_COARSE ? "coarse" : "off",
            vs.level == AL_PVS_TIGHT ? vs.avg_visible_tight : vs.avg_visible_coarse);
    al_leak_info leak;
    if (al_world_leak(w, &leak))
        fprintf(to, "  LEAK: the void reaches entity %d (%s) at (%g %g %g); path of %d points\n",
                leak.entity, leak.classname, leak.points[0][0], leak.points[0][1],
                leak.points[0][2], leak.point_count);
    if (m->doc && m->cache && strcmp(m->cache, "hit") == 0)
        fprintf(to, "  time: read %.0f ms, compile taken from the map's cache in %.0f ms (%.1f MB; "
                    "compiling took %.0f ms)\n",
                m->ms_read, m->ms_cache, m->cache_bytes / 1e6, s.ms_total);
    else
        fprintf(to, "  time: read %.0f ms, compile %.0f ms (brushes %.0f, expand %.0f, blocks %.0f)\n",
                m->ms_read, s.ms_total, s.ms_brushes, s.ms_expand, s.ms_blocks);
    if (m->doc && m->cache && strcmp(m->cache, "hit") != 0)
        fprintf(to, "  cache: %s%s\n", m->cache,
                strcmp(m->cache, "stored") == 0 ? " (the next compile of this map loads it)" : "");
    fprintf(to, "  peak memory: %ld KiB\n", al_tool_peak_rss_kb());
    if (al_diag_count(wd, AL_SEVERITY_ERROR) + al_diag_count(&m->diags, AL_SEVERITY_ERROR) == 0)
        fprintf(to, "  no errors\n");
}

bool al_report_print(cJSON *object, FILE *to)
{
    if (!object) return false;
    char *text = cJSON_PrintUnformatted(object);
    cJSON_Delete(object);
    if (!text) return false;
    fprintf(to, "%s\n", text);
    free(text);
    return true;
}
