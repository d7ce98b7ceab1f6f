/* Building visibility and answering the queries of al-vis.h. */
#include "vis.h"

#include "al-clock.h"
#include "al-vec3.h"
#include "world/world-internal.h"

#include <stdlib.h>
#include <string.h>

void al_vis_destroy(al_vis *vis)
{
    if (!vis) return;
    if (vis->block_arenas)
        for (int b = 0; b < vis->block_count; b++) al_arena_destroy(vis->block_arenas[b]);
    free(vis->block_arenas);
    al_arena_destroy(vis->arena);
    free(vis->leaf_base);
    free(vis->leaf_flags);
    free(vis->leaf_cluster);
    free(vis->border_point);
    free(vis->portals);
    free(vis->seams);
    free(vis->block_portal_first);
    free(vis->block_copied);
    free(vis->dportal_might);
    free(vis->dportal_vis);
    free(vis->portal_dportal);
    free(vis->leaf_portal_first);
    free(vis->leaf_portals);
    free(vis->cluster_leaf);
    free(vis->portal_opaque);
    free(vis->pvs);
    free(vis->cluster_face_first);
    free(vis->cluster_faces);
    free(vis->brush_place_first);
    free(vis->face_places);
    free(vis->entity_cluster_first);
    free(vis->entity_clusters);
    free(vis);
}

int al_vis_build(al_world *w, const al_vis_entity *entities, int entity_count,
                 al_pvs_level level, int threads, const int *cancel, int64_t *progress,
                 bool no_pvs_if_leaking, const al_world *previous)
{
    al_vis *vis = calloc(1, sizeof *vis);
    if (!vis) return -1;
    w->vis = vis;
    vis->cancel = cancel;
    vis->progress = progress;
    const al_model *m = &w->models[0];
    vis->stats.threads = threads;
    vis->leak_entity = -1;
    vis->block_count = m->block_count;
    vis->arena = al_arena_create(4096);
    vis->leaf_base = malloc(((size_t) m->block_count + 1) * sizeof *vis->leaf_base);
    if (!vis->arena || !vis->leaf_base) return -1;
    int64_t leaves = 0;
    for (int b = 0; b < m->block_count; b++) {
        vis->leaf_base[b] = (int32_t) leaves;
        leaves += m->blocks[b].vis.leaf_count;
    }
    if (leaves > INT32_MAX / 4) return -1;
    vis->leaf_base[m->block_count] = (int32_t) leaves;
    vis->leaf_count = (int32_t) leaves;
    vis->stats.all_leaves = vis->leaf_count;
    vis->leaf_flags = calloc((size_t) leaves + 1, 1);
    vis->leaf_cluster = malloc(((size_t) leaves + 1) * sizeof *vis->leaf_cluster);
    vis->border_point = calloc((size_t) leaves + 1, sizeof *vis->border_point);
    if (!vis->leaf_flags || !vis->leaf_cluster || !vis->border_point) return -1;
    for (int b = 0; b < m->block_count; b++) {
        const al_tree *t = &m->blocks[b].vis;
        for (int32_t l = 0; l < t->leaf_count; l++)
            if (t->leaves[l] & 1u) vis->leaf_flags[vis->leaf_base[b] + l] |= AL_VLEAF_SOLID;
    }

    uint64_t t0 = al_clock_ns();
    /* A newer edit (CANCEL) stops the build between its steps: the editor's drag sends one
     * a frame, and each of these steps takes milliseconds on a large map. */
#define STOP_IF_CANCELLED()                                                                    \
    do {                                                                                       \
        if (cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED)) return -2;                    \
    } while (0)
    STOP_IF_CANCELLED();
    if (al_vis_portals(w, vis, previous) < 0) return -1;
    STOP_IF_CANCELLED();
    if (al_vis_seams(w, vis) < 0) return -1;
    STOP_IF_CANCELLED();
    if (al_vis_flood(w, vis, entities, entity_count) < 0) return -1;
    vis->stats.ms_portals = al_clock_ms_since(t0);
    STOP_IF_CANCELLED();
    if (al_vis_leaf_faces(w, vis, entities, entity_count, previous) < 0) return -1;
    STOP_IF_CANCELLED();
#undef STOP_IF_CANCELLED
    if (level != AL_PVS_NONE && vis->leak_entity >= 0 && no_pvs_if_leaking) {
        level = AL_PVS_NONE;
        al_diag_add(&w->diags, AL_SEVERITY_NOTE, AL_DIAG_LEAK, vis->leak_entity, -1, -1, -1, -1,
                    "the map leaks, so there is no PVS until the leak is fixed");
    } else if (level == AL_PVS_TIGHT && vis->leak_entity >= 0) {
        /* The void's huge leaves make the flow slow and its answer useless; as Quake's vis
         * refuses a leaking map, only the coarse pass runs until the leak is fixed. */
        level = AL_PVS_COARSE;
        al_diag_add(&w->diags, AL_SEVERITY_NOTE, AL_DIAG_LEAK, vis->leak_entity, -1, -1, -1, -1,
                    "the map leaks, so the PVS is only the coarse pass until the leak is fixed");
    }
    /* A stored world's rows, if they are for these leaves and portals: used once. */
    bool stored = w->stored_pvs && al_vis_load_pvs(vis, w->stored_pvs, level);
    if (w->stored_pvs) {
        al_stored_pvs_free(w->stored_pvs);
        free(w->stored_pvs);
        w->stored_pvs = NULL;
    }
    vis->previous = previous ? previous->vis : NULL;
    int r = stored ? 0 : al_vis_pvs(vis, level, threads);
    vis->previous = NULL;
    vis->cancel = NULL;
    vis->progress = NULL;
    return r;
}

/* --- queries ---------------------------------------------------------------------------- */

void al_world_vis_stats(const al_world *w, al_vis_stats *out)
{
    if (w->vis)
        *out = w->vis->stats;
    else
        memset(out, 0, sizeof *out);
}

int al_world_vis_leaf_count(const al_world *w)
{
    return w->vis ? w->vis->cluster_count : 0;
}

int al_world_vis_leaf_at(const al_world *w, const double p[3])
{
    if (!w->vis || !al_is_finite3(p)) return -1;
    return w->vis->leaf_cluster[al_vis_find_leaf(w, p)];
}

bool al_world_leaf_sees(const al_world *w, int a, int b)
{
    const al_vis *vis = w->vis;
    if (!vis || a < 0 || b < 0 || a >= vis->cluster_count || b >= vis->cluster_count)
        return false;
    if (!vis->pvs) return true;
    return al_bit_test(al_vis_row(vis, a), b);
}

int al_world_leaves_visible_from(const al_world *w, const double p[3], int32_t *out, int max)
{
    int a = al_world_vis_leaf_at(w, p);
    if (a < 0) return 0;
    int n = 0;
    for (int b = 0; b < w->vis->cluster_count; b++)
        if (al_world_leaf_sees(w, a, b)) {
            if (n < max) out[n] = b;
            n++;
        }
    return n;
}

int al_world_entities_visible_from(const al_world *w, const double p[3], int32_t *out, int max)
{
    int a = al_world_vis_leaf_at(w, p);
    if (a < 0) return 0;
    const al_vis *vis = w->vis;
    int n = 0;
    for (int e = 0; e < vis->entity_count; e++)
        for (int32_t i = vis->entity_cluster_first[e]; i < vis->entity_cluster_first[e + 1]; i++)
            if (al_world_leaf_sees(w, a, vis->entity_clusters[i])) {
                if (n < max) out[n] = e;
                n++;
                break;
            }
    return n;
}

int al_world_portal_count(const al_world *w)
{
    return w->vis ? w->vis->portal_count : 0;
}

bool al_world_portal(const al_world *w, int i, al_portal_info *out)
{
    if (!w->vis || i < 0 || i >= w->vis->portal_count) return false;
    const al_portal *p = &w->vis->portals[i];
    out->leaf[0] = w->vis->leaf_cluster[p->leaf[0]];
    out->leaf[1] = w->vis->leaf_cluster[p->leaf[1]];
    memcpy(out->normal, p->normal, sizeof out->normal);
    out->dist = p->dist;
    out->point_count = p->winding->count;
    out->points = (const double (*)[3]) p->winding->points;
    return true;
}

bool al_world_leak(const al_world *w, al_leak_info *out)
{
    if (!w->vis || w->vis->leak_entity < 0) return false;
    if (!out) return true;
    out->entity = w->vis->leak_entity;
    out->classname = w->vis->leak_classname;
    out->point_count = w->vis->leak_point_count;
    out->points = (const double (*)[3]) w->vis->leak_points;
    return true;
}

const al_leaf_face *al_world_leaf_faces(const al_world *w, int leaf, int *count)
{
    *count = 0;
    const al_vis *vis = w->vis;
    if (!vis || leaf < 0 || leaf >= vis->cluster_count) return NULL;
    *count = vis->cluster_face_first[leaf + 1] - vis->cluster_face_first[leaf];
    return vis->cluster_faces + vis->cluster_face_first[leaf];
}
