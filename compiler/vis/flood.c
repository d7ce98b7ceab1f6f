/* The outside flood, leaks and vis leaves (see vis.h).
 *
 * Breadth-first from every leaf that touches the outer box, through portals and
 * knife-edge seams, so each leaf's parent link leads back to the void by the fewest
 * steps: the leak path is that chain, through the centres of the portals and the seams'
 * points, from the entity's origin out to the map's bounds. Consecutive points lie on the
 * boundary of one convex leaf, so every segment of the path is in empty space.
 */
#include "vis.h"

#include "al-epsilon.h"
#include "al-vec3.h"
#include "world/world-internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The leak path ends this far outside the map's bounds rather than at the outer box. */
#define LEAK_END_MARGIN 64.0

/* The child of N on P's side, for placing an entity. A point off the plane takes its side.
 * A point on the plane (within AL_ON_EPSILON) goes behind the plane as Quake's qbsp faces
 * it: qbsp turns every plane so that the largest component of its normal is positive (an
 * axial plane faces up its axis), and its PlaceOccupant puts a point on a plane behind it.
 * So an origin on a floor's top or on the outer face of a wall is in that brush, and one
 * on a ceiling is in the room below it: id's maps have items and lights lying on the outer
 * side of their roofs and walls (e2m5, e1m2, e1m5), which qbsp so takes for solid and
 * never floods from. */
static int occupant_side(const al_node *n, const double p[3])
{
    double d = al_node_distance(n, p);
    if (d > AL_ON_EPSILON) return 0;
    if (d < -AL_ON_EPSILON) return 1;
    const double *v = n->normal;
    double ax = fabs(v[0]), ay = fabs(v[1]), az = fabs(v[2]);
    int axis = ax >= ay && ax >= az ? 0 : ay >= az ? 1 : 2; /* qbsp's order of ties */
    return v[axis] > 0 ? 1 : 0;
}

/* The global leaf an entity at P occupies: al_vis_find_leaf with occupant_side's rule. */
static int32_t occupant_leaf(const al_world *w, const al_vis *vis, const double p[3])
{
    const al_model *m = &w->models[0];
    int32_t code = m->top.root;
    while (code >= 0) {
        const al_node *n = &m->top.nodes[code];
        code = n->child[occupant_side(n, p)];
    }
    int b = -1 - code;
    const al_tree *t = &m->blocks[b].vis;
    code = t->root;
    while (code >= 0) {
        const al_node *n = &t->nodes[code];
        code = n->child[occupant_side(n, p)];
    }
    return vis->leaf_base[b] + (-1 - code);
}

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

/* A leaf's parent link: the portal (>= 0) or the seam (-2 - seam) it was reached
 * through, -1 for a leaf of the void. Steps to the other leaf and gives the point. */
static int32_t step_back(const al_vis *vis, int32_t link, int32_t l, double point[3])
{
    if (link >= 0) {
        const al_portal *p = &vis->portals[link];
        if (point) al_winding_center(p->winding, point);
        return p->leaf[0] == l ? p->leaf[1] : p->leaf[0];
    }
    const al_vis_seam *s = &vis->seams[-2 - link];
    if (point) al_copy(s->point, point);
    return s->leaf[0] == l ? s->leaf[1] : s->leaf[0];
}

static bool leak_path(al_world *w, al_vis *vis, const int32_t *parent, int32_t leaf,
                      const double origin[3])
{
    int count = 2;
    for (int32_t l = leaf; parent[l] != -1;) {
        l = step_back(vis, parent[l], l, NULL);
        count++;
    }
    vis->leak_points = al_arena_alloc(vis->arena, (size_t) count * sizeof *vis->leak_points);
    if (!vis->leak_points) return false;
    int n = 0;
    al_copy(origin, vis->leak_points[n++]);
    int32_t l = leaf;
    while (parent[l] != -1) {
        l = step_back(vis, parent[l], l, vis->leak_points[n]);
        n++;
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

/* With opaque liquids, marks the portals between two vis leaves that have liquid on one
 * side only: the vis trees split on the liquids' boundary (bsp/block.c), so such a portal
 * lies on a liquid surface, and a point a little off its centre on each side tells the
 * leaves' contents. False if memory runs out. */
static bool mark_liquid_surfaces(const al_world *w, al_vis *vis)
{
    free(vis->portal_opaque);
    vis->portal_opaque = calloc((size_t) vis->portal_count + 1, 1);
    if (!vis->portal_opaque) return false;
    for (int32_t i = 0; i < vis->portal_count; i++) {
        const al_portal *p = &vis->portals[i];
        if (vis->leaf_cluster[p->leaf[0]] < 0 || vis->leaf_cluster[p->leaf[1]] < 0) continue;
        double centre[3], front[3], back[3];
        al_winding_center(p->winding, centre);
        al_madd(centre, p->normal, 0.25, front);
        al_madd(centre, p->normal, -0.25, back);
        vis->portal_opaque[i] = al_world_point_liquid(w, front) != al_world_point_liquid(w, back);
    }
    return true;
}

int al_vis_flood(al_world *w, al_vis *vis, const al_vis_entity *entities, int entity_count)
{
    int32_t leaves = vis->leaf_count;
    int32_t *parent = malloc((size_t) (leaves + 1) * sizeof *parent);
    int32_t *queue = malloc((size_t) (leaves + 1) * sizeof *queue);
    uint8_t *reached = calloc((size_t) leaves + 1, 1);
    /* Seams touching each leaf (CSR). */
    int32_t *seam_first = calloc((size_t) leaves + 2, sizeof *seam_first);
    int32_t *seam_list = malloc(((size_t) vis->seam_count * 2 + 1) * sizeof *seam_list);
    int status = -1;
    if (!parent || !queue || !reached || !seam_first || !seam_list) goto done;
    for (int32_t i = 0; i < vis->seam_count; i++) {
        seam_first[vis->seams[i].leaf[0] + 1]++;
        seam_first[vis->seams[i].leaf[1] + 1]++;
    }
    for (int32_t l = 0; l < leaves; l++) seam_first[l + 1] += seam_first[l];
    for (int32_t i = 0; i < vis->seam_count; i++)
        for (int k = 0; k < 2; k++) seam_list[seam_first[vis->seams[i].leaf[k]]++] = i;
    for (int32_t l = leaves; l > 0; l--) seam_first[l] = seam_first[l - 1];
    seam_first[0] = 0;

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
        for (int32_t i = seam_first[l]; i < seam_first[l + 1]; i++) {
            const al_vis_seam *sm = &vis->seams[seam_list[i]];
            int32_t next = sm->leaf[0] == l ? sm->leaf[1] : sm->leaf[0];
            if (reached[next]) continue;
            reached[next] = 1;
            parent[next] = -2 - seam_list[i];
            queue[tail++] = next;
        }
    }

    /* Entities with an origin tell the inside from the outside. */
    vis->leak_entity = -1;
    int placed = 0;
    for (int e = 1; e < entity_count; e++) {
        const al_vis_entity *ent = &entities[e];
        if (!ent->has_origin) continue;
        int32_t l = occupant_leaf(w, vis, ent->origin);
        if (vis->leaf_flags[l] & AL_VLEAF_SOLID) continue;
        placed++;
        if (reached[l] && vis->leak_entity < 0) {
            vis->leak_entity = e;
            snprintf(vis->leak_classname, sizeof vis->leak_classname, "%s",
                     ent->classname ? ent->classname : "");
            if (!leak_path(w, vis, parent, l, ent->origin)) goto done;
            /* The first knife-edge seam on the path, if any, is named. */
            const double *at = NULL;
            for (int32_t k = l; parent[k] != -1 && !at; k = step_back(vis, parent[k], k, NULL))
                if (parent[k] < -1) at = vis->seams[-2 - parent[k]].point;
            const char *name = vis->leak_classname[0] ? vis->leak_classname : "entity";
            if (!at)
                al_diag_add(&w->diags, AL_SEVERITY_WARNING, AL_DIAG_LEAK, e, -1, -1, ent->line, -1,
                            "leak: the void outside the map reaches this %s at (%g %g %g); "
                            "the path to the outside has %d points",
                            name, ent->origin[0], ent->origin[1], ent->origin[2],
                            (int) vis->leak_point_count);
            else /* brushes that meet only along a sharp edge (seams.c) */
                al_diag_add(&w->diags, AL_SEVERITY_WARNING, AL_DIAG_LEAK, e, -1, -1, ent->line, -1,
                            "leak: the void reaches this %s at (%g %g %g) through a knife-edge "
                            "seam at (%g %g %g); the path out has %d points",
                            name, ent->origin[0], ent->origin[1], ent->origin[2], at[0], at[1],
                            at[2], (int) vis->leak_point_count);
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
    if (w->opaque_liquids && !mark_liquid_surfaces(w, vis)) goto done;
    vis->vis_portal_count = 0;
    for (int32_t i = 0; i < vis->portal_count; i++)
        vis->vis_portal_count += al_vis_portal_sees(vis, i);
    vis->stats.vis_leaves = vis->cluster_count;
    vis->stats.portals = vis->vis_portal_count;
    status = 0;

done:
    free(parent);
    free(queue);
    free(reached);
    free(seam_first);
    free(seam_list);
    return status;
}
