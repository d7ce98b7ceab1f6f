/* The outside flood, leaks and vis leaves (see vis.h).
 *
 * Breadth-first from every leaf that touches the outer box, so each leaf's parent link
 * leads back to the void by the fewest portals: the leak path is that chain, through the
 * centres of the portals, from the entity's origin out to the map's bounds. Consecutive
 * points lie on the boundary of one convex leaf, so every segment of the path is in empty
 * space.
 */
#include "vis.h"

#include "geom/vec3.h"
#include "world/world-internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The leak path ends this far outside the map's bounds rather than at the outer box. */
#define LEAK_END_MARGIN 64.0

/* Where the segment from P to Q leaves the box [MINS, MAXS] (P inside); Q if it does not. */
static void exit_point(const double p[3], const double q[3], const double mins[3],
                       const double maxs[3], double out[3])
{
    double t = 1.0;
    for (int k = 0; k < 3; k++) {
        double d = q[k] - p[k];
        if (d > 0 && p[k] + d * t > maxs[k]) t = (maxs[k] - p[k]) / d;
        if (d < 0 && p[k] + d * t < mins[k]) t = (mins[k] - p[k]) / d;
    }
    if (t < 0) t = 0;
    al_lerp(p, q, t, out);
}

static bool leak_path(al_world *w, al_vis *vis, const int32_t *parent, int32_t leaf,
                      const double origin[3])
{
    int count = 2;
    for (int32_t l = leaf; parent[l] >= 0;) {
        const al_portal *p = &vis->portals[parent[l]];
        l = p->leaf[0] == l ? p->leaf[1] : p->leaf[0];
        count++;
    }
    vis->leak_points = al_arena_alloc(vis->arena, (size_t) count * sizeof *vis->leak_points);
    if (!vis->leak_points) return false;
    int n = 0;
    al_copy(origin, vis->leak_points[n++]);
    int32_t l = leaf;
    while (parent[l] >= 0) {
        const al_portal *p = &vis->portals[parent[l]];
        al_winding_center(p->winding, vis->leak_points[n++]);
        l = p->leaf[0] == l ? p->leaf[1] : p->leaf[0];
    }
    double mins[3], maxs[3];
    for (int k = 0; k < 3; k++) {
        mins[k] = w->models[0].mins[k] - LEAK_END_MARGIN;
        maxs[k] = w->models[0].maxs[k] + LEAK_END_MARGIN;
    }
    exit_point(vis->leak_points[n - 1], vis->border_point[l], mins, maxs, vis->leak_points[n]);
    n++;
    vis->leak_point_count = n;
    return true;
}

int al_vis_flood(al_world *w, al_vis *vis, const al_vis_entity *entities, int entity_count)
{
    int32_t leaves = vis->leaf_count;
    int32_t *parent = malloc((size_t) (leaves + 1) * sizeof *parent);
    int32_t *queue = malloc((size_t) (leaves + 1) * sizeof *queue);
    uint8_t *reached = calloc((size_t) leaves + 1, 1);
    int status = -1;
    if (!parent || !queue || !reached) goto done;

    int head = 0, tail = 0;
    for (int32_t l = 0; l < leaves; l++) {
        parent[l] = -1;
        if ((vis->leaf_flags[l] & (AL_VLEAF_BORDER | AL_VLEAF_SOLID)) == AL_VLEAF_BORDER) {
            reached[l] = 1;
            queue[tail++] = l;
        }
    }
    while (head < tail) {
        int32_t l = queue[head++];
        for (int32_t i = vis->leaf_portal_first[l]; i < vis->leaf_portal_first[l + 1]; i++) {
            const al_portal *p = &vis->portals[vis->leaf_portals[i]];
            int32_t next = p->leaf[0] == l ? p->leaf[1] : p->leaf[0];
            if (reached[next]) continue;
            reached[next] = 1;
            parent[next] = vis->leaf_portals[i];
            queue[tail++] = next;
        }
    }

    /* Entities with an origin tell the inside from the outside. */
    vis->leak_entity = -1;
    int placed = 0;
    for (int e = 1; e < entity_count; e++) {
        const al_vis_entity *ent = &entities[e];
        if (!ent->has_origin) continue;
        int32_t l = al_vis_find_leaf(w, ent->origin);
        if (vis->leaf_flags[l] & AL_VLEAF_SOLID) continue;
        placed++;
        if (reached[l] && vis->leak_entity < 0) {
            vis->leak_entity = e;
            snprintf(vis->leak_classname, sizeof vis->leak_classname, "%s",
                     ent->classname ? ent->classname : "");
            if (!leak_path(w, vis, parent, l, ent->origin)) goto done;
            al_diag_add(&w->diags, AL_SEVERITY_WARNING, AL_DIAG_LEAK, e, -1, -1, ent->line, -1,
                        "leak: the void outside the map reaches this %s at (%g %g %g); "
                        "the path to the outside has %d points",
                        vis->leak_classname[0] ? vis->leak_classname : "entity",
                        ent->origin[0], ent->origin[1], ent->origin[2],
                        (int) vis->leak_point_count);
        }
    }
    if (placed == 0 && leaves > 0)
        al_diag_add(&w->diags, AL_SEVERITY_WARNING, AL_DIAG_ENTITY, -1, -1, -1, -1, -1,
                    "no entity has an origin in empty space, so the inside of the map cannot "
                    "be told from the void outside: no leak check, and no leaves are dropped "
                    "from visibility");

    /* A sealed map drops the void; then the remaining empty leaves are the vis leaves. */
    bool sealed = placed > 0 && vis->leak_entity < 0;
    vis->cluster_count = 0;
    for (int32_t l = 0; l < leaves; l++) {
        vis->leaf_cluster[l] = -1;
        if (vis->leaf_flags[l] & AL_VLEAF_SOLID) continue;
        if (sealed && reached[l]) {
            vis->leaf_flags[l] |= AL_VLEAF_OUTSIDE;
            vis->stats.outside_leaves++;
            continue;
        }
        vis->leaf_cluster[l] = vis->cluster_count++;
    }
    vis->cluster_leaf = malloc((size_t) (vis->cluster_count + 1) * sizeof *vis->cluster_leaf);
    if (!vis->cluster_leaf) goto done;
    for (int32_t l = 0; l < leaves; l++)
        if (vis->leaf_cluster[l] >= 0) vis->cluster_leaf[vis->leaf_cluster[l]] = l;
    vis->vis_portal_count = 0;
    for (int32_t i = 0; i < vis->portal_count; i++)
        if (vis->leaf_cluster[vis->portals[i].leaf[0]] >= 0 &&
            vis->leaf_cluster[vis->portals[i].leaf[1]] >= 0)
            vis->vis_portal_count++;
    vis->stats.vis_leaves = vis->cluster_count;
    vis->stats.portals = vis->vis_portal_count;
    status = 0;

done:
    free(parent);
    free(queue);
    free(reached);
    return status;
}
