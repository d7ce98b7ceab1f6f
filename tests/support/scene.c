/* Test scenes (see scene.h). */
#include "scene.h"

#include "mapgen.h"

#include "al-edits.h"
#include "al-world-trees.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool compile(scene *s, const scene_options *options)
{
    if (al_map_input_build(s->map, &s->input, &s->diags) != AL_OK) return false;
    if (options && options->hulls) {
        s->input.input.hulls = options->hulls;
        s->input.input.hull_count = options->hull_count;
    }
    if (options && options->block_size > 0) s->input.input.block_size = options->block_size;
    al_compile_options co = {.threads = options ? options->threads : 0,
                             .pvs = options && options->pvs ? options->pvs_level : AL_PVS_NONE};
    return al_world_compile(&s->input.input, &co, &s->world, &s->diags) == AL_OK;
}

bool scene_load_text(scene *s, const char *text, size_t length, const scene_options *options)
{
    memset(s, 0, sizeof *s);
    if (!text || al_map_read_buffer(text, length, &s->map, &s->diags) != AL_OK) return false;
    return compile(s, options);
}

bool scene_load_file(scene *s, const char *path, const scene_options *options)
{
    memset(s, 0, sizeof *s);
    if (al_map_read_file(path, &s->map, &s->diags) != AL_OK) return false;
    return compile(s, options);
}

bool scene_load_mapgen(scene *s, mapgen *g, const scene_options *options)
{
    size_t len;
    const char *text = mapgen_text(g, &len);
    bool ok = scene_load_text(s, text, len, options);
    mapgen_destroy(g);
    return ok;
}

void scene_free(scene *s)
{
    al_world_destroy(s->world);
    al_map_input_free(&s->input);
    al_map_destroy(s->map);
    al_diag_list_clear(&s->diags);
    memset(s, 0, sizeof *s);
}

int scene_hull(const scene *s, const char *name)
{
    int h = al_world_find_hull(s->world, name);
    if (h < 0) {
        fprintf(stderr, "test bug: no hull named %s\n", name);
        abort();
    }
    return h;
}

const char *scene_shared_maps(void)
{
    const char *dir = getenv("ALLIUM_SHARED_MAPS");
#ifdef ALLIUM_SHARED_MAPS
    if (!dir) dir = ALLIUM_SHARED_MAPS;
#endif
    struct stat st;
    if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return dir;
}

const char *scene_shared_map(const char *name)
{
    static char path[4096];
    const char *dir = scene_shared_maps();
    if (!dir) return NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0 ? path : NULL;
}

/* (p1 - p0) x (p2 - p0) */
static void tri_cross(const double *p0, const double *p1, const double *p2, double out[3])
{
    double a[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
    double b[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

int scene_face_polys_errors(const al_input *input, const al_face_polys *polys, char *why,
                            size_t why_size)
{
    int bad = 0;
    if (why && why_size) why[0] = 0;
#define FAIL(...)                                                                          \
    do {                                                                                   \
        if (bad++ == 0 && why) snprintf(why, why_size, __VA_ARGS__);                       \
        goto next;                                                                         \
    } while (0)
    if (polys->brush_count != input->brush_count) {
        if (why) snprintf(why, why_size, "%d brushes, input has %d", polys->brush_count,
                          input->brush_count);
        return 1;
    }
    for (int b = 0; b < polys->brush_count; b++) {
        int first = polys->brush_first[b], end = polys->brush_first[b + 1];
        if (first == end) continue;
        double sum[3] = {0, 0, 0}, area = 0;
        for (int i = first; i < end; i++) {
            const al_face_poly *f = &polys->faces[i];
            if (f->brush != b || f->point_count < 3) FAIL("brush %d: face %d malformed", b, i);
            const double (*pt)[3] = polys->points + f->first_point;
            for (int v = 0; v < f->point_count; v++) {
                double d = pt[v][0] * f->normal[0] + pt[v][1] * f->normal[1] +
                           pt[v][2] * f->normal[2] - f->dist;
                if (fabs(d) > 0.01) FAIL("brush %d face %d: vertex %d off its plane by %g", b,
                                         f->face, v, d);
                for (int j = first; j < end; j++) {
                    const al_face_poly *g = &polys->faces[j];
                    double e = pt[v][0] * g->normal[0] + pt[v][1] * g->normal[1] +
                               pt[v][2] * g->normal[2] - g->dist;
                    if (e > 0.01) FAIL("brush %d face %d: vertex %d in front of face %d by %g",
                                       b, f->face, v, g->face, e);
                }
            }
            double n[3] = {0, 0, 0};
            for (int v = 1; v + 1 < f->point_count; v++) {
                double c[3];
                tri_cross(pt[0], pt[v], pt[v + 1], c);
                for (int k = 0; k < 3; k++) n[k] += 0.5 * c[k];
            }
            /* Clockwise seen from the front: the right-hand normal points backwards. */
            double along = n[0] * f->normal[0] + n[1] * f->normal[1] + n[2] * f->normal[2];
            if (along > 0) FAIL("brush %d face %d winds counter-clockwise", b, f->face);
            for (int k = 0; k < 3; k++) sum[k] += n[k];
            area += fabs(along);
        }
        if (fabs(sum[0]) + fabs(sum[1]) + fabs(sum[2]) > 1e-6 * area + 1e-6)
            FAIL("brush %d: faces do not close (area-weighted normals sum to %g %g %g)", b,
                 sum[0], sum[1], sum[2]);
    next:;
    }
#undef FAIL
    return bad;
}

/* True if a node at DEPTH below CODE holds C in its cell and has every point of POLY on
 * its plane. Where C lies on a plane (within EPS) both sides are searched. */
static bool split_node_found(const al_tree_view *tree, int32_t code, int level, int depth,
                             const double c[3], const double (*poly)[3], int n, double eps)
{
    if (code < 0) return false;
    const al_node *node = &tree->nodes[code];
    double d = al_node_distance(node, c);
    if (level == depth) {
        bool on = true;
        for (int i = 0; i < n && on; i++) on = fabs(al_node_distance(node, poly[i])) < eps;
        if (on) return true;
    }
    if (level >= depth) return false;
    if (d >= -eps && split_node_found(tree, node->child[0], level + 1, depth, c, poly, n, eps))
        return true;
    return d <= eps && split_node_found(tree, node->child[1], level + 1, depth, c, poly, n, eps);
}

int scene_split_errors(const al_world *world, const double p[3], int *count, char *why,
                       size_t why_size)
{
    al_block_splits sp;
    *count = 0;
    if (al_world_block_splits(world, p, &sp) != AL_OK || sp.block < 0) return -1;
    al_tree_view tree;
    al_world_block_onion_tree(world, sp.block, &tree);
    *count = sp.count;
    int bad = 0;
    for (int i = 0; i < sp.count; i++) {
        const double (*poly)[3] = (const double (*)[3]) sp.points + sp.first[i];
        int n = sp.first[i + 1] - sp.first[i];
        double c[3] = {0, 0, 0};
        bool inside = n >= 3;
        for (int k = 0; k < n; k++)
            for (int a = 0; a < 3; a++) {
                c[a] += poly[k][a] / n;
                inside = inside && poly[k][a] >= sp.mins[a] - 1e-3 && poly[k][a] <= sp.maxs[a] + 1e-3;
            }
        bool found = inside && split_node_found(&tree, tree.root, 0, sp.depth[i], c, poly, n, 1e-3);
        if (!found && bad++ == 0)
            snprintf(why, why_size, "polygon %d (depth %d, %d points, centre %g %g %g) %s", i,
                     sp.depth[i], n, c[0], c[1], c[2],
                     inside ? "is on no node's plane at its depth" : "leaves the block");
    }
    if (sp.count > tree.node_count && bad++ == 0)
        snprintf(why, why_size, "%d polygons from %d nodes", sp.count, tree.node_count);
    al_block_splits_free(&sp);
    return bad;
}

/* A world's portals as al_world_portal gives them, copied (the world's vis may go). */
typedef struct portal_list {
    al_portal_info *items;
    double (*points)[3];
    int count;
} portal_list;

static bool portal_list_take(const al_world *w, portal_list *out)
{
    int n = al_world_portal_count(w), points = 0;
    out->count = n;
    out->items = malloc(((size_t) n + 1) * sizeof *out->items);
    if (!out->items) return false;
    for (int i = 0; i < n; i++) {
        al_world_portal(w, i, &out->items[i]);
        points += out->items[i].point_count;
    }
    out->points = malloc(((size_t) points + 1) * sizeof *out->points);
    if (!out->points) return false;
    points = 0;
    for (int i = 0; i < n; i++) {
        memcpy(out->points + points, out->items[i].points,
               (size_t) out->items[i].point_count * sizeof out->points[0]);
        out->items[i].points = (const double (*)[3]) out->points + points;
        points += out->items[i].point_count;
    }
    return true;
}

static void portal_list_free(portal_list *l)
{
    free(l->items);
    free(l->points);
}

/* Whether A's portals are B's, in the same order: the same vis leaves, and planes and
 * polygons within TOLERANCE (0: exactly). WHAT names B. */
static bool same_portals(const portal_list *a, const portal_list *b, double tolerance,
                         const char *what, char *why, size_t size)
{
    if (a->count != b->count) {
        snprintf(why, size, "%d portals, %s %d", a->count, what, b->count);
        return false;
    }
    for (int i = 0; i < a->count; i++) {
        const al_portal_info *p = &a->items[i], *q = &b->items[i];
        bool same = p->leaf[0] == q->leaf[0] && p->leaf[1] == q->leaf[1] &&
                    p->point_count == q->point_count && fabs(p->dist - q->dist) <= tolerance;
        for (int k = 0; k < 3 && same; k++) same = fabs(p->normal[k] - q->normal[k]) <= tolerance;
        for (int j = 0; j < p->point_count && same; j++)
            for (int k = 0; k < 3 && same; k++)
                same = fabs(p->points[j][k] - q->points[j][k]) <= tolerance;
        if (!same) {
            snprintf(why, size, "portal %d: leaves %d/%d against %s's %d/%d, %d points against %d",
                     i, p->leaf[0], p->leaf[1], what, q->leaf[0], q->leaf[1], p->point_count,
                     q->point_count);
            return false;
        }
    }
    return true;
}

/* A world's faces in vis leaves, vis leaf by vis leaf, copied (the world's vis may go). */
typedef struct leaf_face_list {
    int32_t *first; /* per vis leaf + 1 */
    al_leaf_face *items;
    int leaves;
} leaf_face_list;

static bool leaf_face_list_take(const al_world *w, leaf_face_list *out)
{
    int n = al_world_vis_leaf_count(w), total = 0, count;
    out->leaves = n;
    out->first = malloc(((size_t) n + 1) * sizeof *out->first);
    if (!out->first) return false;
    for (int l = 0; l < n; l++) {
        out->first[l] = total;
        al_world_leaf_faces(w, l, &count);
        total += count;
    }
    out->first[n] = total;
    out->items = malloc(((size_t) total + 1) * sizeof *out->items);
    if (!out->items) return false;
    for (int l = 0; l < n; l++) {
        const al_leaf_face *f = al_world_leaf_faces(w, l, &count);
        if (count) memcpy(out->items + out->first[l], f, (size_t) count * sizeof *f);
    }
    return true;
}

static void leaf_face_list_free(leaf_face_list *l)
{
    free(l->first);
    free(l->items);
}

/* Whether A's faces in vis leaves are B's, in the same order. WHAT names B. */
static bool same_leaf_faces(const leaf_face_list *a, const leaf_face_list *b, const char *what,
                            char *why, size_t size)
{
    if (a->leaves != b->leaves) {
        snprintf(why, size, "%d vis leaves, %s %d", a->leaves, what, b->leaves);
        return false;
    }
    for (int l = 0; l < a->leaves; l++) {
        int na = a->first[l + 1] - a->first[l], nb = b->first[l + 1] - b->first[l];
        const al_leaf_face *fa = a->items + a->first[l], *fb = b->items + b->first[l];
        for (int k = 0; k < na || k < nb; k++) {
            if (k < na && k < nb && fa[k].brush == fb[k].brush && fa[k].face == fb[k].face)
                continue;
            snprintf(why, size,
                     "vis leaf %d: %d faces against %s's %d, the %d-th brush %d face %d "
                     "against %d face %d",
                     l, na, what, nb, k, k < na ? fa[k].brush : -1, k < na ? fa[k].face : -1,
                     k < nb ? fb[k].brush : -1, k < nb ? fb[k].face : -1);
            return false;
        }
    }
    return true;
}

void scene_edit_check(const al_input *in, int edits, int batch, int points, int threads,
                      uint64_t seed, scene_edit_report *out)
{
    memset(out, 0, sizeof *out);
    al_compile_options co = {.threads = threads, .no_vis = true};
    al_edit_input e;
    if (!al_edit_input_init(&e, in)) {
        out->failed_updates = 1;
        snprintf(out->why, sizeof out->why, "out of memory");
        return;
    }
    al_world *current = NULL;
    al_vis_options vo = {.level = AL_PVS_NONE, .threads = threads};
    if (al_world_compile(&e.input, &co, &current, NULL) != AL_OK ||
        al_world_build_vis_with(current, &e.input, &vo) != AL_OK) {
        out->failed_updates = 1;
        snprintf(out->why, sizeof out->why, "the first compile failed");
        al_world_destroy(current);
        al_edit_input_free(&e);
        return;
    }
    al_rng rng = {seed};
    while (out->edits < edits) {
        for (int i = 0; i < batch && out->edits < edits; i++) {
            al_edit edit;
            if (!al_edit_random(&e, &rng, 8, &edit)) break;
            out->edits++;
        }
        al_world *next = NULL, *full = NULL;
        al_diag_list d1 = {0}, d2 = {0};
        al_status s1 = al_world_update(current, &e.input, &co, &next, &d1);
        al_status s2 = al_world_compile(&e.input, &co, &full, &d2);
        /* Without visibility the vis trees wait for al_world_build_vis; the live engine's
         * portals stage builds those the update left, and so does this, to compare them. */
        if (s1 == AL_OK) s1 = al_world_build_vis_trees(next, threads);
        if (s2 == AL_OK) s2 = al_world_build_vis_trees(full, threads);
        /* Portals: the update's built in full, then again taking those of the blocks it
         * shares from CURRENT (the two must be one), and the full compile's. */
        portal_list anew = {0}, copied = {0}, whole = {0};
        leaf_face_list faces_anew = {0}, faces_copied = {0};
        al_vis_options vn = vo;
        vn.previous = current;
        if (s1 == AL_OK) s1 = al_world_build_vis_with(next, &e.input, &vo);
        if (s1 == AL_OK &&
            (!portal_list_take(next, &anew) || !leaf_face_list_take(next, &faces_anew)))
            s1 = AL_ERR_NOMEM;
        if (s1 == AL_OK) s1 = al_world_build_vis_with(next, &e.input, &vn);
        if (s1 == AL_OK &&
            (!portal_list_take(next, &copied) || !leaf_face_list_take(next, &faces_copied)))
            s1 = AL_ERR_NOMEM;
        if (s2 == AL_OK) s2 = al_world_build_vis_with(full, &e.input, &vo);
        if (s2 == AL_OK && !portal_list_take(full, &whole)) s2 = AL_ERR_NOMEM;
        out->batches++;
        if (s1 != s2 || s1 != AL_OK) {
            if (s1 != s2 && !out->failed_updates)
                snprintf(out->why, sizeof out->why, "update gave status %d, full compile %d",
                         s1, s2);
            out->failed_updates += s1 != s2;
        } else {
            char why[300];
            int differ = al_world_tree_differences(next, full, why, sizeof why);
            if (differ && !out->tree_differences)
                snprintf(out->why, sizeof out->why, "after %d edits: %s", out->edits, why);
            out->tree_differences += differ;
            /* The trees of an update and of a full compile may differ in a plane's last
             * bits (al_world_tree_differences allows the plane table's merge tolerance),
             * so their portals agree to within a little more. */
            if (!same_portals(&copied, &anew, 0, "its own built in full", why, sizeof why) ||
                !same_portals(&copied, &whole, 1e-6, "a full compile", why, sizeof why)) {
                if (!out->portal_differences)
                    snprintf(out->why, sizeof out->why, "after %d edits: %s", out->edits, why);
                out->portal_differences++;
            }
            if (!same_leaf_faces(&faces_copied, &faces_anew, "those found anew", why, sizeof why)) {
                if (!out->leaf_face_differences)
                    snprintf(out->why, sizeof out->why, "after %d edits: %s", out->edits, why);
                out->leaf_face_differences++;
            }
            al_vis_stats vs;
            al_world_vis_stats(next, &vs);
            out->portal_blocks_copied_mean += vs.portal_blocks_copied;
            out->face_brushes_placed_mean += vs.face_brushes_placed;
            out->face_brushes_mean += vs.face_brushes;
            if (al_world_diagnostics(next)->count != al_world_diagnostics(full)->count &&
                !out->why[0])
                snprintf(out->why, sizeof out->why, "after %d edits: %zu diagnostics, full %zu",
                         out->edits, al_world_diagnostics(next)->count,
                         al_world_diagnostics(full)->count);
            al_world_stats st;
            al_world_get_stats(next, &st);
            out->blocks_built_mean += st.blocks_built;
            out->blocks_mean += st.blocks;
            out->brushes_copied_mean += st.brushes_copied;
            if (points > 0) {
                al_oracle *oracle = al_oracle_create(next);
                for (int h = 0; oracle && h < al_world_hull_count(next); h++) {
                    al_verify_counts c;
                    al_verify_solidity(next, oracle, h, points, seed + (uint64_t) out->batches,
                                       &c);
                    out->solidity_checked += c.checked;
                    out->solidity_mismatches += c.mismatches;
                }
                al_oracle_destroy(oracle);
            }
        }
        portal_list_free(&anew);
        portal_list_free(&copied);
        portal_list_free(&whole);
        leaf_face_list_free(&faces_anew);
        leaf_face_list_free(&faces_copied);
        al_world_destroy(full);
        al_diag_list_clear(&d1);
        al_diag_list_clear(&d2);
        if (next) {
            al_world_destroy(current);
            current = next;
        }
    }
    if (out->batches) {
        out->blocks_built_mean /= out->batches;
        out->blocks_mean /= out->batches;
        out->brushes_copied_mean /= out->batches;
        out->portal_blocks_copied_mean /= out->batches;
        out->face_brushes_placed_mean /= out->batches;
        out->face_brushes_mean /= out->batches;
    }
    al_world_destroy(current);
    al_edit_input_free(&e);
}
